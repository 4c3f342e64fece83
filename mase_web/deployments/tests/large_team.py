"""A large team for the deployment tests: the gallery template cut to ten agents (five groups of two) with a
training budget of seconds, trained once per session through the product's training path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from agents.envs.large_team import scaled_groups

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "large_team.json"


def large_team_spec(n_agents: int = 10, max_steps: int = 60) -> dict:
    doc = json.loads(EXAMPLE.read_text())
    groups = scaled_groups(n_agents)
    doc["environment"]["params"] |= {"groups": groups, "max_steps": max_steps}
    ids = {line.split("*")[0] for line in groups}
    doc["agents"] = [a for a in doc["agents"] if a["id"] in ids]
    doc["training"] |= {
        "episodes": 4, "batch_size": 2, "eval_every": 0, "eval_episodes": 2, "checkpoint_every": 4,
        "teacher_fade_episodes": 4,
    }  # fmt: skip
    return doc


def train_large_team(out: Path) -> Path:
    """The checkpoint directory of a freshly trained `large_team_spec` team."""
    from training import api

    torch.set_num_threads(1)
    result = api.train(large_team_spec(), out, resume=False)
    assert result.status == "succeeded", result
    return out / "checkpoints" / "mappo" / "last"


@pytest.fixture(scope="session")
def large_team_checkpoint(tmp_path_factory) -> Path:
    """A `large_team_spec` team trained once per session (seconds)."""
    return train_large_team(tmp_path_factory.mktemp("large_team"))
