"""PettingZoo's Multi-Particle tasks through MASE's wrapper (`agents.envs.mpe`): the parallel API, the
spec's environment checks, and the designer's parameter descriptions."""

from __future__ import annotations

import numpy as np
import pytest

from agents.envs import env_parameters, make_env
from agents.envs.mpe import MPE_TASKS, MpeEnv, mpe_available

needs_mpe2 = pytest.mark.skipif(
    not mpe_available(), reason="the mpe2 package is not installed (pip install mpe2)"
)


@needs_mpe2
@pytest.mark.parametrize("task", sorted(MPE_TASKS))
def test_parallel_api_on_every_task(task):
    from pettingzoo.test import parallel_api_test

    env = make_env("mpe", {"task": task, "max_cycles": 10})
    parallel_api_test(env, num_cycles=25)
    observations, _ = env.reset(seed=0)
    assert env.agents == MpeEnv.expected_agents({"task": task})
    for agent, obs in observations.items():
        assert obs.dtype == np.float32 and env.observation_space(agent).contains(obs)
    assert env.state().ndim == 1


@needs_mpe2
def test_episode_ends_after_max_cycles_with_team_rewards():
    env = make_env("mpe", {"task": "simple_spread", "max_cycles": 5, "local_ratio": 0.0})
    env.reset(seed=1)
    steps = 0
    while env.agents:
        _, rewards, _, truncs, _ = env.step({a: 0 for a in env.agents})
        steps += 1
        assert len(set(rewards.values())) == 1  # local_ratio 0: the team reward only
    assert steps == 5 and all(truncs.values())


def test_params_checked_and_described():
    assert MpeEnv.validate_params({"task": "simple_spread"}) == []
    bad = {e.path for e in MpeEnv.validate_params({"task": "simple_tag", "max_cycles": 0, "foo": 1})}
    assert bad == {"$.task", "$.max_cycles", "$.foo"}
    assert [e.path for e in MpeEnv.validate_params({"task": "simple_reference", "agents": 4})] == ["$.agents"]
    assert MpeEnv.expected_agents({"task": "simple_speaker_listener"}) == ["speaker_0", "listener_0"]
    assert MpeEnv.expected_agents({"task": "simple_spread", "agents": 4})[-1] == "agent_3"
    params = {p["name"]: p for p in env_parameters("mpe")}
    assert params["task"]["kind"] == "choice" and set(params["task"]["choices"]) == set(MPE_TASKS)


def test_spec_names_the_task_agents():
    from agents.spec import validate_spec

    doc = {
        "spec_version": 1,
        "name": "speaker listener",
        "agents": [
            {"id": "speaker_0", "role": "custom", "prompt": "Say which landmark is the target."},
            {"id": "listener_0", "role": "custom", "prompt": "Move to the landmark you are told."},
        ],
        "environment": {"name": "mpe", "params": {"task": "simple_speaker_listener"}},
        "training": {"algorithm": "mappo", "episodes": 64, "batch_size": 16},
    }
    assert validate_spec(doc) == []
    doc["agents"][1]["id"] = "agent_1"
    assert any("listener_0" in e.message for e in validate_spec(doc))
