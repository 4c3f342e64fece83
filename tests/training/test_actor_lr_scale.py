"""The actors' slower step (`training.actor_lr_scale`): the actors' optimiser group steps at `lr` × the scale,
the critic's at `lr`; at 1 the optimiser keeps its single group (a checkpoint's shape), and the option
travels from the spec to the config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.errors import SpecValidationError
from agents.spec import load_spec
from training.mappo.build import build_trainer
from training.mappo.from_spec import config_from_spec

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "interactive_support.json"


def _doc(**training) -> dict:
    doc = json.loads(TEMPLATE.read_text())
    small = {"batch_size": 4, "episodes": 8, "eval_every": 0, "checkpoint_every": 0, "eval_episodes": 4}
    doc["training"] |= small | {"teacher_clone_episodes": 0} | training
    return doc


def _group_of(trainer, module) -> dict:
    first = next(module.parameters())
    return next(g for g in trainer.optimizer.param_groups if any(p is first for p in g["params"]))


def test_the_actors_step_at_the_share_and_the_critic_at_lr(tmp_path):
    trainer = build_trainer(load_spec(_doc(lr=0.003, actor_lr_scale=0.1)), tmp_path)
    assert _group_of(trainer, trainer.actor)["lr"] == pytest.approx(0.0003)
    assert _group_of(trainer, trainer.critic)["lr"] == pytest.approx(0.003)
    everything = {id(p) for g in trainer.optimizer.param_groups for p in g["params"]}
    assert {id(p) for p in [*trainer.actor.parameters(), *trainer.critic.parameters()]} <= everything


def test_by_default_one_group_as_before(tmp_path):
    trainer = build_trainer(load_spec(_doc()), tmp_path)
    assert len(trainer.optimizer.param_groups) == 1
    assert trainer.optimizer.param_groups[0]["lr"] == pytest.approx(0.003)


def test_the_option_round_trips_and_is_a_share():
    assert config_from_spec(load_spec(_doc(actor_lr_scale=0.25))).actor_lr_scale == 0.25
    for bad in (0.0, 1.5):
        with pytest.raises(SpecValidationError):
            load_spec(_doc(actor_lr_scale=bad))
