"""The training section is a union on `algorithm`: the common options plus the algorithm's options model
(agents/spec/algorithm_options.py). Every example and every draft saved before the union (every option of
every algorithm written out) loads unchanged, migrated on read; a saved section holds the algorithm's
options alone; the algorithm decides which options the validator refuses or reports as unread
(docs/decisions/0016-the-algorithm-declares-its-options.md)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from agents.spec import load_spec, spec_warnings, validate_spec
from agents.spec.algorithms import ALGORITHMS, readers
from agents.spec.nodes import TRAINING_SECTIONS, IppoTraining, MappoTraining, ReinforceCommTraining

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))

DRAFT_OF_THIS_VERSION = {  # a MAPPO draft's training section as the designer saved it before this change
    "algorithm": "mappo", "episodes": 2000, "batch_size": 16, "lr": 0.0005, "seed": 3, "device": "cpu",
    "baseline": "moving_average", "entropy_coef": None, "grad_clip": 1.0, "train_adapters": False,
    "eval_every": 500, "eval_episodes": 200, "checkpoint_every": 500, "reader": "whole", "reader_epochs": 300,
    "warm_start_episodes": 0, "warm_start_epochs": 8, "critic_warmup_episodes": 64, "self_imitation": 1.0,
    "policy_sharing": "independent", "counterfactual": True, "teacher": "rules", "teacher_checkpoint": "",
    "teacher_coef": 0.5, "teacher_fade_episodes": 800, "reception": "weighted", "reading": "shared",
    "embedding_noise": 0.0, "paraphrase_consistency": 0.0, "token_attention": False,
}  # fmt: skip


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_loads_unchanged_and_saves_its_algorithms_section(path):
    doc = json.loads(path.read_text())
    assert validate_spec(doc) == []
    spec = load_spec(doc)
    saved = spec.to_dict()
    section = TRAINING_SECTIONS[spec.training.algorithm]
    assert type(spec.training) is section
    assert set(saved["training"]) == {f.name for f in dataclasses.fields(section)}  # its options alone
    written = doc.get("training", {})
    # every value the example writes is kept (an option moved to another section is that section's to keep)
    assert {k: saved["training"][k] for k in written if k in saved["training"]} == {
        k: v for k, v in written.items() if k in saved["training"]
    }
    assert load_spec(saved) == spec  # a draft saved by this version reads back as the same spec


def test_a_draft_saved_before_the_options_models_loads_with_every_value():
    doc = json.loads((EXAMPLES[0]).read_text())
    doc["training"] = dict(DRAFT_OF_THIS_VERSION)
    assert validate_spec(doc) == []
    assert not [w for w in spec_warnings(doc) if "training" in w.path]  # the unread ones were at defaults
    training = load_spec(doc).training
    assert isinstance(training, MappoTraining)
    kept = {k: v for k, v in DRAFT_OF_THIS_VERSION.items() if hasattr(training, k)}
    assert {k: getattr(training, k) for k in kept} == kept
    assert {"algorithm", "critic_warmup_episodes", "teacher", "counterfactual"} <= set(kept)
    assert not {"baseline", "reading", "token_attention"} & set(load_spec(doc).to_dict()["training"])


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_draft_saved_with_every_option_written_out_loads_under_each_algorithm(algorithm):
    """A draft saved before the union holds every option at its default, the other algorithms' too: none
    of them is refused or reported, whatever the algorithm, and the loaded section is the algorithm's."""
    doc = json.loads(EXAMPLES[0].read_text())
    saved = load_spec(doc).to_dict()
    every = {f.name: f.default for cls in TRAINING_SECTIONS.values() for f in dataclasses.fields(cls)}
    saved["training"] = {**every, **saved["training"], "algorithm": algorithm}
    assert validate_spec(saved) == []
    assert not [w for w in spec_warnings(saved) if "does not read" in w.message]
    assert type(load_spec(saved).training) is TRAINING_SECTIONS[algorithm]
    assert load_spec(saved).training.algorithm == algorithm


def test_a_stored_ppo_draft_with_reinforce_settings_still_loads_and_is_told_they_change_nothing():
    """The designer of before kept reinforce_comm's options when switching to PPO: such a draft loads,
    each of them a warning at its path, and the loaded MAPPO section has none of them."""
    doc = json.loads((EXAMPLES[0]).read_text())
    saved = load_spec(doc).to_dict()
    saved["training"].update(algorithm="mappo", baseline="value", token_attention=True)
    assert validate_spec(saved) == []
    assert load_spec(saved).training == MappoTraining(
        **{
            k: v
            for k, v in saved["training"].items()
            if k in {f.name for f in dataclasses.fields(MappoTraining)}
        }
    )
    assert not hasattr(load_spec(saved).training, "baseline")
    unread = {w.path for w in spec_warnings(saved) if "does not read" in w.message}
    assert unread == {"$.training.baseline", "$.training.token_attention"}


def test_the_union_types_each_section_by_its_algorithm_and_an_absent_one_is_reinforce_comm():
    doc = json.loads(EXAMPLES[0].read_text())
    doc.pop("training", None)
    assert load_spec(doc).training == ReinforceCommTraining()
    doc["training"] = {"algorithm": "ippo", "teacher": "none", "episodes": 10}
    assert load_spec(doc).training == IppoTraining(episodes=10)
    doc["training"] = {"algorithm": "mappo", "lr": "0.1", "nonsense": 1}  # strict: no coercion from a string
    found = {e.path: e.message for e in validate_spec(doc)}
    assert found["$.training.lr"] == "must be a number in (0, 1], got a string"
    assert found["$.training.nonsense"].startswith('unknown key; allowed keys here: "algorithm", "episodes"')
    assert '"teacher"' in found["$.training.nonsense"] and '"baseline"' not in found["$.training.nonsense"]


def test_a_ppo_setting_under_reinforce_comm_is_refused_at_its_path_each_from_the_options_model():
    doc = json.loads(EXAMPLES[0].read_text())
    doc["training"] = {"algorithm": "reinforce_comm", "self_imitation": 1.0, "teacher_coef": 2.0}
    found = {e.path: e.message for e in validate_spec(doc)}
    words = "a PPO setting: set algorithm to mappo or ippo, not 'reinforce_comm'"
    assert found == {"$.training.self_imitation": words, "$.training.teacher_coef": words}
    assert readers("teacher_coef") == ("mappo", "ippo")
