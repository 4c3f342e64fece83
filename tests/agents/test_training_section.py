"""The training section is the common options plus one options model per algorithm family
(agents/spec/algorithm_options.py), and its JSON stays one flat object: every example and every draft the
current version saves loads unchanged, and the algorithm decides which options the validator refuses or
reports as unread (docs/decisions/0016-the-algorithm-declares-its-options.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.spec import load_spec, spec_warnings, validate_spec
from agents.spec.algorithms import ALGORITHMS, readers

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.json"))

STORED_KEYS = {  # the training keys a spec saved before the options models were split out holds
    "algorithm", "episodes", "batch_size", "lr", "seed", "device", "baseline", "entropy_coef", "grad_clip",
    "train_adapters", "eval_every", "eval_episodes", "checkpoint_every", "reader", "reader_epochs",
    "warm_start_episodes", "warm_start_epochs", "critic_warmup_episodes", "self_imitation", "policy_sharing",
    "counterfactual", "teacher", "teacher_checkpoint", "teacher_coef", "teacher_fade_episodes", "reception",
    "reading", "embedding_noise", "paraphrase_consistency", "token_attention",
}  # fmt: skip


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_loads_unchanged_and_saves_the_flat_section(path):
    doc = json.loads(path.read_text())
    assert validate_spec(doc) == []
    spec = load_spec(doc)
    saved = spec.to_dict()
    assert set(saved["training"]) == STORED_KEYS
    assert {k: saved["training"][k] for k in doc.get("training", {})} == doc.get("training", {})
    assert load_spec(saved) == spec  # a draft saved by this version reads back as the same spec


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_draft_saved_with_every_option_written_out_loads_under_each_algorithm(algorithm):
    """A saved draft holds every option at its default, the other algorithms' too: none of them is
    refused or reported, whatever the algorithm."""
    doc = json.loads(EXAMPLES[0].read_text())
    saved = load_spec(doc).to_dict()
    saved["training"]["algorithm"] = algorithm
    assert validate_spec(saved) == []
    assert not [w for w in spec_warnings(saved) if "does not read" in w.message]
    assert load_spec(saved).training.algorithm == algorithm


def test_a_stored_ppo_draft_with_reinforce_settings_still_loads_and_is_told_they_change_nothing():
    """The designer of before kept reinforce_comm's options when switching to PPO: such a draft loads,
    each of them a warning at its path."""
    doc = json.loads((EXAMPLES[0]).read_text())
    saved = load_spec(doc).to_dict()
    saved["training"].update(algorithm="mappo", baseline="value", token_attention=True)
    assert validate_spec(saved) == []
    assert load_spec(saved).training.baseline == "value"
    unread = {w.path for w in spec_warnings(saved) if "does not read" in w.message}
    assert unread == {"$.training.baseline", "$.training.token_attention"}


def test_a_ppo_setting_under_reinforce_comm_is_refused_at_its_path_each_from_the_options_model():
    doc = json.loads(EXAMPLES[0].read_text())
    doc["training"] = {"algorithm": "reinforce_comm", "self_imitation": 1.0, "teacher_coef": 2.0}
    found = {e.path: e.message for e in validate_spec(doc)}
    words = "a PPO setting: set algorithm to mappo or ippo, not 'reinforce_comm'"
    assert found == {"$.training.self_imitation": words, "$.training.teacher_coef": words}
    assert readers("teacher_coef") == ("mappo", "ippo")
