"""The large team's rule bidders (the teacher and the scripted fallback): fastest kind first, in time only."""

from __future__ import annotations

import numpy as np

from agents.envs import make_env
from agents.envs.large_team import scaled_groups
from agents.envs.large_team.env import OBS_FIELDS
from agents.envs.large_team.scripted import RuleBidders

IN_TIME, SPEED = OBS_FIELDS.index("own_in_time"), OBS_FIELDS.index("relative_speed")


def observation(in_time: bool, speed: float) -> np.ndarray:
    obs = np.zeros(len(OBS_FIELDS), dtype=np.float32)
    obs[IN_TIME], obs[SPEED] = float(in_time), speed
    return obs


def test_the_fastest_kind_bids_above_a_slower_one_and_nobody_bids_late():
    rules = RuleBidders({"bid_levels": 2})
    assert rules.act("guides_0", observation(True, 1.0)) == 2
    assert rules.act("generalists_0", observation(True, 0.6)) == 1
    assert rules.act("guides_0", observation(False, 1.0)) == 0
    assert RuleBidders({"bid_levels": 1}).act("generalists_0", observation(True, 0.6)) == 1


def in_time_only(observations: dict) -> dict:
    """The earlier rule: the top level for any task the agent would finish in time."""
    return {a: 2 if o[IN_TIME] > 0.5 else 0 for a, o in observations.items()}


def play(params: dict, seed: int, act) -> tuple[float, int]:
    env = make_env("large_team", params)
    observations, _ = env.reset(seed=seed)
    info: dict = {}
    while env.agents:
        observations, _, _, _, infos = env.step(act(observations))
        info = next(iter(infos.values()), info)
    names = env.possible_agents
    generalist_wins = sum(
        1 for a in env.allocations if a["winner"] is not None and names[a["winner"]].startswith("generalists")
    )
    return info.get("in_time_after", info["in_time"]), generalist_wins


def test_fastest_first_keeps_the_generalists_in_reserve_for_a_failure():
    """Against bidding for anything in time: as many tasks in time or more, fewer of them on the generalists,
    and more in time after two of the four guides fail (streams 0-3 of 120 tasks, 20 agents)."""
    rules = RuleBidders().actions
    base = {"groups": scaled_groups(20), "max_steps": 120}
    failed = {**base, "fault_schedule": ["guides_0@40", "guides_1@40"]}
    clean_new = [play(base, seed, rules) for seed in range(4)]
    clean_old = [play(base, seed, in_time_only) for seed in range(4)]
    assert sum(r[0] for r in clean_new) >= sum(r[0] for r in clean_old)
    assert sum(r[1] for r in clean_new) < sum(r[1] for r in clean_old)
    after_new = sum(play(failed, seed, rules)[0] for seed in range(4))
    after_old = sum(play(failed, seed, in_time_only)[0] for seed in range(4))
    assert after_new > after_old


def generalists_speed_on_presales(state_sync: str) -> list[tuple[float, float]]:
    """(time since every guide failed, the lowest relative speed an online generalist sees) at each presales
    task after the failure, 20 agents."""
    env = make_env(
        "large_team",
        {
            "groups": scaled_groups(20),
            "max_steps": 150,
            "state_sync": state_sync,
            "fault_schedule": [f"guides_{i}@20" for i in range(4)],
        },
    )
    observations, _ = env.reset(seed=3)
    seen, failed_at = [], None
    while env.agents:
        if env.t >= 20 and env.tasks[env.t].kind == "presales":
            failed_at = env.tasks[20].arrival if failed_at is None else failed_at
            speeds = [o[SPEED] for a, o in observations.items() if a.startswith("generalists")]
            seen.append((env.now - failed_at, min(speeds)))
        observations, *_ = env.step(RuleBidders().actions(observations))
    return seen


def test_who_is_fastest_follows_the_shared_state_when_a_kind_loses_all_its_specialists():
    """With every guide offline the generalists become the fastest kind for presales: at once with the
    controller's state, once the news has gossiped to them (2·log2 N rounds of one time unit) with gossip."""
    assert all(speed == 1.0 for _, speed in generalists_speed_on_presales("central"))
    gossip = generalists_speed_on_presales("gossip")
    bound = 2 * np.log2(20)
    assert all(speed == 1.0 for since, speed in gossip if since > bound)
    assert any(since > bound for since, _ in gossip)
