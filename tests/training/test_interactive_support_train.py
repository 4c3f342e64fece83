"""The interactive support template trains through the product's entry point on a tiny budget, and its
checkpoint plays the evaluation the baselines use."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from agents.envs.interactive_support.baselines import evaluate
from agents.spec import load_spec
from training.api import train
from training.mappo.from_spec import load_policy

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "interactive_support.json"


@pytest.fixture
def one_thread():
    """Small networks on a shared machine: one thread, as the benchmark runs them (restored after)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.mark.parametrize("algorithm", ["mappo", "ippo"])
def test_the_template_trains_on_a_tiny_budget_and_its_checkpoint_plays(tmp_path, algorithm, one_thread):
    spec = json.loads(TEMPLATE.read_text())
    spec["training"].update(
        algorithm=algorithm, batch_size=16, eval_every=0, checkpoint_every=0, teacher_fade_episodes=16,
        teacher_clone_episodes=32,  # the template's clone stage, on a tiny budget too
    )
    result = train(spec, tmp_path, episodes=32, resume=False)
    assert result.status == "succeeded" and result.episodes == 32
    assert result.metrics["steps_per_episode"] >= 4  # a conversation takes triage, search, answer, review
    team = load_spec(tmp_path / "spec.json", require_environment=True)
    policy = load_policy(team, tmp_path / "checkpoints" / "mappo" / "last", backbone=None).policy()
    metrics = evaluate(policy, "heldout", episodes=10)
    assert 0.0 <= metrics["resolution"] <= 1.0 and metrics["cost"] >= 4
