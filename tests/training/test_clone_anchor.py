"""The clone's anchor (`training.clone_kl`): KL(π_clone ‖ π_θ) on every step of each PPO minibatch, zero at the
start, growing as the actors move; the option travels from the spec to the config and the checkpoint, and the
spec check refuses it without a clone to anchor to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from agents.errors import SpecValidationError
from agents.spec import load_spec
from training.mappo.build import build_trainer
from training.mappo.clone_anchor import anchor_kl, masked_kl
from training.mappo.from_spec import config_from_spec

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "interactive_support.json"


pytestmark = pytest.mark.usefixtures("single_thread")  # small networks on a shared machine


def _doc(**training) -> dict:
    doc = json.loads(TEMPLATE.read_text())
    small = {"batch_size": 4, "episodes": 8, "eval_every": 0, "checkpoint_every": 0, "eval_episodes": 4}
    doc["training"] |= small | {"teacher_clone_episodes": 20, "clone_kl": 1.0} | training
    return doc


def _batch_kl(trainer, batch) -> float:
    """KL(anchor ‖ actors) over every present step of ``batch``."""
    inputs = (batch.obs, batch.noise, batch.beta, batch.present, batch.valid, batch.heard)
    with torch.no_grad():
        logits, _ = trainer.actor(*inputs)
        return float(anchor_kl(trainer.clone_anchor, inputs, logits, batch.present))


def test_masked_kl_is_zero_for_the_same_policy_and_ignores_masked_steps():
    logits = torch.tensor([[0.0, 1.0, -1e9], [2.0, 0.0, 0.0]])
    moved = logits + torch.tensor([[0.5, -0.5, 0.0], [0.0, 0.0, 3.0]])
    assert float(masked_kl(logits, logits, torch.tensor([True, True]))) == pytest.approx(0.0, abs=1e-7)
    assert float(masked_kl(logits, moved, torch.tensor([True, False]))) > 0.0
    assert float(masked_kl(logits, moved, torch.tensor([False, False]))) == 0.0


def test_the_anchor_is_the_start_and_the_kl_grows_after_an_update(tmp_path):
    trainer = build_trainer(load_spec(_doc()), tmp_path)
    trainer.cfg.updates = 0
    trainer.run(trainer.events)  # the fresh start (the clone), then the anchor; no update
    assert trainer.clone_anchor is not None
    assert not any(p.requires_grad for p in trainer.clone_anchor.parameters())
    batch, _ = trainer.collect()
    assert _batch_kl(trainer, batch) == pytest.approx(0.0, abs=1e-6)
    stats = trainer.update(batch)
    assert stats["clone_kl"] > 0.0  # minibatches after the first read a moved policy
    assert _batch_kl(trainer, batch) > 1e-6


def test_without_the_option_there_is_no_anchor(tmp_path):
    trainer = build_trainer(load_spec(_doc(clone_kl=0)), tmp_path)
    trainer.cfg.updates = 0
    trainer.run(trainer.events)
    assert trainer.clone_anchor is None
    batch, _ = trainer.collect()
    assert trainer.update(batch)["clone_kl"] == 0.0


def test_a_resumed_run_restores_its_anchor(tmp_path):
    trainer = build_trainer(load_spec(_doc()), tmp_path / "a")
    trainer.cfg.updates = 0
    trainer.run(trainer.events)
    trainer.update(trainer.collect()[0])
    trainer.save_checkpoint(tmp_path / "ckpt")
    resumed = build_trainer(load_spec(_doc()), tmp_path / "b")
    resumed.load_checkpoint(tmp_path / "ckpt")
    saved, restored = trainer.clone_anchor.state_dict(), resumed.clone_anchor.state_dict()
    assert all(torch.equal(saved[k], restored[k]) for k in saved)
    moved = trainer.actor.state_dict()
    assert any(not torch.equal(moved[k], restored[k]) for k in saved)  # the start, not the resumed actors


def test_the_option_round_trips_and_needs_a_clone():
    team = load_spec(_doc(clone_kl=0.25))
    assert team.training.clone_kl == 0.25
    assert config_from_spec(team).clone_kl == 0.25
    with pytest.raises(SpecValidationError, match="set training.teacher_clone_episodes first"):
        load_spec(_doc(teacher_clone_episodes=0))
