"""Held-out phrasings: training-only re-phrasing of clues, the consistency loss, per-agent reading, spec fields."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from agents.comm import allowed_links
from agents.envs.number_guess import NumberGuessEnv
from agents.policy import TeamPolicy
from agents.spec import load_spec, validate_spec
from tests.agents.test_spec import number_guess_doc
from training.reinforce_comm import ReinforceCommConfig

N64 = {"n": 64, "informative": 3, "distractors": 4, "clue_kinds": ["ranges", "remainders"]}


def test_paraphrases_state_the_same_digit_in_another_training_template_never_a_heldout_one():
    train = NumberGuessEnv(**N64, templates="train")
    heldout = set().union(
        *(NumberGuessEnv(**N64, templates="heldout").vocabulary(a) for a in train._informants)
    )
    rng = np.random.default_rng(0)
    batch = train.sample_batch(2000, rng, with_texts=False)
    n_templates = train.templates_per_clue()
    for agent in train.possible_agents:
        ids = batch.text_ids[agent]
        other = train.paraphrase_ids(agent, ids, rng)
        if train.agent_kind(agent) != "informative":
            assert other is None
            continue
        assert np.array_equal(other // n_templates, ids // n_templates)  # same digit
        assert np.all(other % n_templates != ids % n_templates)  # another phrasing
        assert len(set((other % n_templates).tolist())) == n_templates  # every training template drawn
        texts = {train.vocabulary(agent)[i] for i in other.tolist()}
        assert not texts & heldout


def _policy(reading: str = "shared") -> TeamPolicy:
    torch.manual_seed(0)
    return TeamPolicy(["a", "b", "g"], ["g"], 4, 8, allowed_links(3), hidden=6, d_msg=5, reading=reading)


def test_paraphrase_gap_is_zero_for_identical_embeddings_positive_otherwise_and_trains_the_message():
    policy = _policy()
    embeddings = torch.randn(5, 2, 8)
    assert policy.paraphrase_gap(embeddings, embeddings.clone()).item() == 0.0
    gap = policy.paraphrase_gap(embeddings, embeddings + 0.3 * torch.randn(5, 2, 8))
    assert gap.item() > 0
    gap.backward()
    for parameter in (policy.message.weight, policy.trunk.weight):
        assert parameter.grad is not None and float(parameter.grad.abs().sum()) > 0


def test_per_agent_reading_gives_each_agent_its_own_first_layer():
    policy = _policy("per_agent")
    assert not hasattr(policy, "trunk") and policy.reader_w.shape == (3, 8, 6)
    embeddings = torch.randn(4, 3, 8)
    same_text = embeddings[:, :1].expand(4, 3, 8)  # every agent shows the same text
    hidden = policy.read(same_text)
    assert not torch.allclose(hidden[:, 0], hidden[:, 1])  # …and reads it its own way
    assert torch.allclose(
        policy.read(embeddings)[:, 1:], policy.read(embeddings[:, 1:], torch.tensor([1, 2]))
    )
    out = policy(embeddings, routing="broadcast")
    assert torch.allclose(out.hidden, policy.read(embeddings))
    gap = policy.paraphrase_gap(embeddings[:, :2], embeddings[:, :2] + 0.3, torch.tensor([0, 1]))
    gap.backward()
    assert float(policy.reader_w.grad[:2].abs().sum()) > 0 and float(policy.reader_w.grad[2].abs().sum()) == 0
    with pytest.raises(ValueError, match="reading"):
        _policy("mine")


def test_spec_fields_reach_the_trainer_and_bad_values_are_refused_with_their_paths():
    doc = number_guess_doc()
    doc["training"] = {
        "reception": "gated",
        "reading": "per_agent",
        "embedding_noise": 0.1,
        "paraphrase_consistency": 1.0,
    }
    config = ReinforceCommConfig.from_spec(load_spec(doc))
    assert (config.reception, config.reading, config.embedding_noise, config.paraphrase_consistency) == (
        "gated",
        "per_agent",
        0.1,
        1.0,
    )
    assert (
        ReinforceCommConfig.from_spec(load_spec(doc), paraphrase_consistency=0.0).paraphrase_consistency == 0
    )
    bad = copy.deepcopy(doc)
    bad["training"] = {
        "reception": "loud",
        "reading": "mine",
        "embedding_noise": -0.1,
        "paraphrase_consistency": "much",
    }
    assert sorted(e.path for e in validate_spec(bad)) == [
        "$.training.embedding_noise",
        "$.training.paraphrase_consistency",
        "$.training.reading",
        "$.training.reception",
    ]


def test_paraphrase_consistency_needs_an_environment_that_can_rephrase():
    doc = number_guess_doc()
    doc["environment"] = {"name": "customer_service", "params": {}}
    doc["training"] = {"paraphrase_consistency": 1.0}
    assert "$.training.paraphrase_consistency" in [e.path for e in validate_spec(doc)]
    doc["environment"] = {"name": None, "params": {}}
    assert "$.training.paraphrase_consistency" not in [e.path for e in validate_spec(doc)]


@pytest.mark.parametrize("weight, start, calls_expected", [(0.0, 0.0, 0), (1.0, 0.0, 1), (1.0, 0.9, 0)])
def test_trainer_adds_the_loss_when_weighted_once_the_team_reads(weight, start, calls_expected, monkeypatch):
    from agents.backbone import Backbone
    from training.reinforce_comm import ReinforceCommTrainer

    doc = number_guess_doc()
    doc["training"] = {"paraphrase_consistency": weight, "eval_every": 0, "checkpoint_every": 0}
    # consistency starts with the attention, at training success `start` (0: at once)
    trainer = ReinforceCommTrainer(
        load_spec(doc), backbone=Backbone.load("default"), attention_start_success=start
    )
    calls = []
    original = trainer.policy.paraphrase_gap
    monkeypatch.setattr(trainer.policy, "paraphrase_gap", lambda *a: calls.append(1) or original(*a))
    trainer.update(*trainer.sample(8))
    trainer.update(
        torch.zeros(8, len(trainer.agents), trainer.backbone.dim), torch.zeros(8, dtype=torch.long)
    )
    assert len(calls) == calls_expected  # a batch not drawn by sample() has no paraphrases


def test_n64_example_trains_with_the_bench_heldout_recipe_without_overrides():
    from pathlib import Path

    from bench.comm_learning import HELDOUT_AUGMENT, HELDOUT_SETTINGS, SETTINGS

    example = Path(__file__).resolve().parents[2] / "examples" / "number_guess_n64.json"
    spec = load_spec(example)
    config = ReinforceCommConfig.from_spec(spec)
    for key, value in {**SETTINGS, **HELDOUT_SETTINGS}.items():
        assert getattr(config, key) == value, key
    assert spec.environment.params["augment"] == HELDOUT_AUGMENT
