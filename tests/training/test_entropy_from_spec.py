"""`training.entropy_coef` reaches each trainer as the spec gives it: null (the default) is the trainer's
own default, and any value, 0 included, is used unchanged."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from agents.spec import load_spec
from training.mappo.config import MappoConfig
from training.mappo.from_spec import config_from_spec
from training.reinforce_comm.config import ReinforceCommConfig

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def team(algorithm: str, **training: object):
    doc = {
        "name": "t",
        "agents": [
            {"id": "a", "role": "custom", "prompt": "p"},
            {"id": "b", "role": "custom", "prompt": "q"},
        ],
        "training": {"algorithm": algorithm, **training},
    }
    return load_spec(doc)


@pytest.mark.parametrize("algorithm", ["mappo", "ippo"])
def test_ppo_takes_zero_as_zero_and_null_as_its_default(algorithm):
    assert config_from_spec(team(algorithm, entropy_coef=0)).entropy_coef == 0.0
    assert config_from_spec(team(algorithm, entropy_coef=0.2)).entropy_coef == 0.2
    assert config_from_spec(team(algorithm)).entropy_coef == MappoConfig.entropy_coef == 0.01
    assert config_from_spec(team(algorithm, entropy_coef=None)).entropy_coef == 0.01


def test_reinforce_comm_takes_the_value_given_and_null_as_its_default():
    assert ReinforceCommConfig.from_spec(team("reinforce_comm")).entropy_coef == 0.0
    assert ReinforceCommConfig.from_spec(team("reinforce_comm", entropy_coef=0.15)).entropy_coef == 0.15
    assert ReinforceCommConfig.from_spec(team("reinforce_comm", entropy_coef=0)).entropy_coef == 0.0


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.stem)
def test_templates_train_with_the_entropy_weight_they_name(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc = copy.deepcopy(doc)
    doc["environment"] = {"name": None, "params": {}}  # only the training section is read here
    for agent in doc["agents"]:
        agent.pop("intents", None)
    spec = load_spec(doc)
    given = doc["training"]["entropy_coef"]
    if spec.training.algorithm in ("mappo", "ippo"):
        assert config_from_spec(spec).entropy_coef == given
    else:
        assert ReinforceCommConfig.from_spec(spec).entropy_coef == given
