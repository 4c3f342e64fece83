"""Options the chosen algorithm does not read are reported, not silently ignored (`spec_warnings`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.spec import spec_warnings, validate_spec
from agents.spec.algorithms import ALGORITHMS, readers
from agents.spec.training_section import ALL_TRAINING_OPTIONS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def doc(algorithm: str, hidden=(64, 64), **training):
    agents = [
        {"id": f"a{i}", "role": "custom", "prompt": "p", "policy_head": {"hidden": h}}
        for i, h in enumerate(hidden)
    ]
    return {"name": "t", "agents": agents, "training": {"algorithm": algorithm, **training}}


def training_warnings(d) -> dict[str, str]:
    assert validate_spec(d) == []
    return {w.path: w.message for w in spec_warnings(d) if "training" in w.path or "policy_head" in w.path}


@pytest.mark.parametrize("algorithm", ["mappo", "ippo"])
def test_a_reinforce_comm_option_under_ppo_is_reported_at_its_path(algorithm):
    found = training_warnings(doc(algorithm, baseline="value", reading="per_agent", embedding_noise=0.1))
    assert set(found) == {"$.training.baseline", "$.training.reading", "$.training.embedding_noise"}
    assert found["$.training.reading"] == (
        f"{algorithm} does not read this option (only reinforce_comm does): it changes nothing in this run"
    )


def test_defaults_and_the_reading_algorithm_are_quiet():
    assert training_warnings(doc("mappo")) == {}
    assert training_warnings(doc("reinforce_comm", baseline="value", reading="per_agent")) == {}


def test_a_ppo_team_with_different_actor_widths_is_told_they_become_one():
    found = training_warnings(doc("mappo", hidden=(32, 64, 16)))
    assert set(found) == {"$.agents[0].policy_head.hidden", "$.agents[2].policy_head.hidden"}
    assert found["$.agents[2].policy_head.hidden"] == (
        "the MAPPO trainer gives every agent's policy head the team's widest size, "
        "so this agent's 16 hidden units become 64"
    )
    assert training_warnings(doc("reinforce_comm", hidden=(32, 64))) == {}


def test_readers_name_real_algorithms_and_the_templates_set_nothing_unread():
    for name in ALL_TRAINING_OPTIONS:
        assert set(readers(name)) <= set(ALGORITHMS), name
    assert readers("baseline") == ("reinforce_comm",) and readers("teacher") == ("mappo", "ippo")
    assert readers("lr") == ()  # a common option: every algorithm reads it
    for path in EXAMPLES.glob("*.json"):
        assert not [w for w in spec_warnings(json.loads(path.read_text())) if "does not read" in w.message], (
            path
        )
