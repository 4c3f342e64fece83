"""The teacher's clone as a run's start (`training.teacher_clone_episodes`): the actors are fitted to the
teacher's play before the first update, and that start is validated as the first `best` candidate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from agents.errors import SpecValidationError
from agents.spec import load_spec
from training.mappo.build import build_trainer
from training.mappo.teacher_clone import clone_teacher, teacher_episodes

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "interactive_support.json"


pytestmark = pytest.mark.usefixtures("single_thread")  # small networks on a shared machine


def _trainer(tmp_path: Path, **training):
    doc = json.loads(TEMPLATE.read_text())
    doc["environment"]["params"]["world"] = "uncertain"
    # no clone unless a test asks for one (the template ships with one: decision 0036)
    small = {"batch_size": 4, "episodes": 8, "eval_every": 8, "eval_episodes": 20, "teacher_clone_episodes": 0}
    doc["training"] |= small | training
    return build_trainer(load_spec(doc), tmp_path)


def _agreement(trainer, episodes) -> float:
    """Share of the teacher's (non-wait) decisions the greedy actors reproduce on its own episodes."""
    agree = total = 0
    for ep in episodes:
        for step in ep["steps"]:
            obs = step["observations"]
            o = trainer.featurize([obs.get(a) for a in trainer.agents], trainer.obs_dim)
            present = torch.tensor([a in step["actions"] for a in trainer.agents])
            with torch.no_grad():
                logits, _ = trainer.actor(o.unsqueeze(0), None, 0.0, present.unsqueeze(0),
                                          trainer.valid_actions(obs).unsqueeze(0))  # fmt: skip
            for i, a in enumerate(trainer.agents):
                if step["actions"].get(a, 0) != 0:  # 0 is "wait", the only valid action off one's turn
                    agree += int(logits[0, i].argmax()) == step["actions"][a]
                    total += 1
    return agree / total


def test_the_clone_reproduces_the_teachers_decisions(tmp_path):
    trainer = _trainer(tmp_path)
    held = teacher_episodes(trainer, 40, seed=777)
    assert all(len(ep["steps"]) >= 4 for ep in held)
    before = _agreement(trainer, held)
    stats = clone_teacher(trainer, 300, seed=0)
    assert stats["samples"] > 0
    after = _agreement(trainer, held)
    assert after >= 0.9 > before  # on customers it was not fitted on


def test_without_a_teacher_nothing_is_cloned(tmp_path):
    trainer = _trainer(tmp_path, teacher="none", teacher_fade_episodes=0)
    assert clone_teacher(trainer, 50, seed=0) == {}
    doc = json.loads(TEMPLATE.read_text())
    doc["training"] |= {"teacher": "none", "teacher_fade_episodes": 0, "teacher_clone_episodes": 50}
    with pytest.raises(SpecValidationError, match="clones a teacher"):
        load_spec(doc)


def test_the_clone_is_the_first_best_candidate(tmp_path):
    """A run of 0 PPO updates serves what it started from: with the option, the clone (which resolves
    most validation customers); without it, the untrained actors (which resolve almost none)."""
    scores = {}
    for clone in (0, 300):
        trainer = _trainer(tmp_path / str(clone), teacher_clone_episodes=clone, episodes=4)
        trainer.cfg.updates = 0
        trainer.run(trainer.events, checkpoint_root=tmp_path / str(clone) / "checkpoints")
        best = json.loads(
            (tmp_path / str(clone) / "checkpoints" / "mappo" / "best" / "state.json").read_text()
        )
        scores[clone] = best["best_score"]
    assert scores[300] >= 0.6 > 0.3 >= scores[0]
