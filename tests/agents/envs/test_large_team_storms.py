"""Message storms in the large team: a storming agent is detected, its reputation falls, its flood is throttled
and its bids discounted, it recovers when it behaves, and the defence keeps the team's in-time completion."""

from __future__ import annotations

import numpy as np
import pytest

from agents.envs.large_team import OBS_FIELDS, LargeTeamEnv, scaled_groups
from agents.envs.large_team.storms import TRUST
from training.event_payloads import AllocationPayload

IN_TIME = OBS_FIELDS.index("own_in_time")
STORMER = "generalists_0"


def rules(observations: dict) -> dict:
    """Bid the top level for a task the agent would finish in time, else pass."""
    return {a: 2 if o[IN_TIME] > 0.5 else 0 for a, o in observations.items()}


def run(env: LargeTeamEnv, seed: int = 0) -> tuple[dict, list[float]]:
    """One episode of rule bidders; the last info and the stormer's reputation at each task."""
    observations, _ = env.reset(seed=seed)
    i, trace, info = env.possible_agents.index(STORMER), [], {}
    while env.agents:
        trace.append(float(env.reputations()[i]))
        observations, _, _, _, infos = env.step(rules(observations))
        info = next(iter(infos.values()), info)
    return info, trace


def test_a_storm_is_detected_throttled_and_discounted_and_the_agent_recovers():
    env = LargeTeamEnv(groups=scaled_groups(20), fault_schedule=[f"{STORMER}@20-80 storm"])
    info, trace = run(env)
    assert trace[:20] == [1.0] * 20  # nothing before the storm (no gossip round ever passed the quota)
    assert min(trace[20:30]) < TRUST  # detected within a couple of rounds (about 4 tasks a round)
    assert info["storms"] == 1 and info["storm_rounds"] >= 10
    assert info["throttled"] > 0.95 * info["flood_sent"]  # the quota, then the fallen reputation, drop it
    assert info["reputation_lowest"] < 0.01
    i = env.possible_agents.index(STORMER)
    untrusted = [t for t in range(25, 81) if trace[t] < TRUST]
    won = [t for t in untrusted if env.allocations[t]["winner"] == i]
    # discounted: it wins only a task no trusted agent bid for
    assert all(all(b == i for b in env.allocations[t]["bids"]) for t in won)
    assert trace[-1] > 0.9  # it behaved for the rest of the episode
    summary = env.allocation_summary()
    assert summary["stormers"] == [STORMER] and summary["storms"] == 1
    AllocationPayload.model_validate(summary)  # the run event carries it


@pytest.mark.parametrize("n", [20, 100])
def test_a_quiet_team_raises_no_storm(n):
    info, trace = run(LargeTeamEnv(groups=scaled_groups(n), max_steps=120))
    assert info["storms"] == 0 and info["throttled"] == 0 and set(trace) == {1.0}


def test_the_reputation_defence_keeps_in_time_completion_under_a_storm():
    def in_time(defence: str, storm: bool) -> float:
        schedule = [f"{STORMER}@10 storm"] if storm else []
        env = LargeTeamEnv(groups=scaled_groups(20), fault_schedule=schedule, storm_defence=defence)
        return float(np.mean([run(env, seed)[0]["in_time"] for seed in range(3)]))

    clean, defended, open_ = in_time("reputation", False), in_time("reputation", True), in_time("none", True)
    assert open_ < clean - 0.04  # the flood's interruptions cost the receivers' time
    assert defended > open_ + 0.04 and defended >= clean - 0.02


@pytest.mark.parametrize(
    "entry, message",
    [
        ("guides_0@3-9", "agent@first-last storm"),
        ("guides_0@9-3 storm", "a storm ends after it starts"),
        ("nobody@3 storm", "no agent nobody"),
    ],
)
def test_the_spec_checks_storm_entries(entry, message):
    problems = LargeTeamEnv.validate_params({"fault_schedule": [entry]})
    assert any(message in p.message for p in problems)
