"""MAPPO's critic on the interactive support workflow reads privileged state the actors never see: the
customer's true problem and goal, which facts they stated, which candidate articles are right (not outdated,
not contradicting, on the true problem), their patience and clarity (`InteractiveSupportEnv.state`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.envs.interactive_support.env import OBS, InteractiveSupportEnv
from agents.envs.interactive_support.world import CANDIDATES, GOALS, PROBLEMS
from agents.spec import load_spec
from training.mappo.build import build_trainer

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "interactive_support.json"
HIDDEN = len(PROBLEMS) + len(GOALS) + 3 + CANDIDATES + 2


pytestmark = pytest.mark.usefixtures("single_thread")  # small networks on a shared machine


def test_the_state_ends_with_the_hidden_facts_in_the_uncertain_world():
    env = InteractiveSupportEnv(world="uncertain")
    for seed in range(40):
        env.reset(seed=seed)
        c, hidden = env.customer, env.state()[-HIDDEN:]
        problem, goal = hidden[: len(PROBLEMS)], hidden[len(PROBLEMS) : len(PROBLEMS) + len(GOALS)]
        assert int(np.argmax(problem)) == c.problem and problem.sum() == 1
        assert int(np.argmax(goal)) == c.goal and goal.sum() == 1
        right = hidden[-2 - CANDIDATES : -2]
        truth = [a.problem == c.problem and a.kind in ("current", "related") for a in env.candidates]
        assert right[: len(truth)].tolist() == [float(t) for t in truth]
        assert hidden[-2] == np.float32(c.persona.patience / 18)
        # the actors read the patience through a noisy tone cue only
        assert env.observation_vector("triage")[OBS["patience_cue"]] == np.float32(c.patience_cue)


def test_the_critic_is_trained_on_the_privileged_state(tmp_path):
    doc = json.loads(TEMPLATE.read_text())
    doc["environment"]["params"]["world"] = "uncertain"
    doc["training"] |= {"batch_size": 2, "episodes": 2, "eval_every": 0}
    trainer = build_trainer(load_spec(doc), tmp_path)
    assert trainer.state_dim == trainer.obs_dim - 4 + HIDDEN  # the observation less its role, plus the facts
    batch, _ = trainer.collect()
    problems = batch.state[:, -HIDDEN : -HIDDEN + len(PROBLEMS)]
    assert torch.equal(problems.sum(-1), torch.ones(len(batch.state)))
