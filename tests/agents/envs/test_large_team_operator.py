"""An operator's take-offline in the middle of a large team's stream: the agent's tasks are handed over (none
lost; one nobody could finish in time any more is dropped), it gets no new task, its backlog reads zero, and brought back it takes tasks again."""

from __future__ import annotations

import numpy as np
import pytest

from agents.envs.large_team import LargeTeamEnv, scaled_groups


def busiest_specialist(env: LargeTeamEnv) -> str:
    backlog = [w.backlog(env.now) for w in env.workers]
    specialists = [i for i, a in enumerate(env.possible_agents) if not a.startswith("generalists")]
    return env.possible_agents[max(specialists, key=lambda i: backlog[i])]


def test_taken_offline_mid_stream_its_tasks_are_handed_over_and_it_gets_no_new_one():
    env = LargeTeamEnv(groups=scaled_groups(10), allocation="central", max_steps=120)
    env.reset(seed=1, options={"tasks": 80})
    assert len(env.tasks) == 80
    for _ in range(30):
        _, _, _, _, infos = env.step(dict.fromkeys(env.agents, 0))
    agent = busiest_specialist(env)
    i = env.possible_agents.index(agent)
    held = len(env.workers[i].queue) + (env.workers[i].busy_until > env.now)
    assert held > 0
    observations = env.set_agent_online(agent, False)
    assert agent not in observations and agent not in env.agents
    assert len(env.handovers) == held and all(h["to"] != agent for h in env.handovers)
    for h in env.handovers:  # to someone who finishes it in time, or dropped because nobody would
        task = env.tasks[h["task"]]
        if h["to"] is None:
            assert h["dropped"] == "late" and task.id in env.dropped
        else:
            receiver = env.workers[env.possible_agents.index(h["to"])]
            assert task in receiver.queue + receiver.done and h["dropped"] is None
    while env.agents:
        _, _, _, _, infos = env.step(dict.fromkeys(env.agents, 0))
        load = next(iter(infos.values()))["load"]
        assert load["backlog"][i] == 0 and not load["online"][i]
    figures = next(iter(infos.values()))
    assert figures["lost"] == 0 and figures["in_time_after"] is not None
    assert all(a["winner"] != i for a in env.allocations[30:])
    assert load["handed_over"] == held


def test_brought_back_it_bids_and_wins_again():
    env = LargeTeamEnv(groups=scaled_groups(10), allocation="central", max_steps=100)
    env.reset(seed=2, options={"offline": ["guides_0"]})
    for _ in range(20):
        env.step(dict.fromkeys(env.agents, 0))
    observations = env.set_agent_online("guides_0", True)
    assert "guides_0" in observations and env.agents == env.possible_agents
    while env.agents:
        env.step(dict.fromkeys(env.agents, 0))
    assert any(a["winner"] == 0 for a in env.allocations[20:])
    assert np.isfinite(env.figures()["in_time"])


def test_bad_names_and_stream_lengths_are_refused():
    env = LargeTeamEnv(groups=scaled_groups(10), max_steps=50)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="no agent 'nobody'"):
        env.set_agent_online("nobody", False)
    for bad in (0, 51, "ten", True):
        with pytest.raises(ValueError, match="tasks must be a whole number from 1 to 50"):
            env.reset(seed=0, options={"tasks": bad})
