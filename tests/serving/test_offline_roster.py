"""The runtime's roster of agents taken offline (`serving.roster`): an episode starts with them offline, one in
flight catches up before its next step (and brings an agent back), an environment without a roster is left
alone, and a row read before an operator's switch does not undo it."""

from __future__ import annotations

import time

from agents.envs.large_team import LargeTeamEnv, scaled_groups
from serving.roster import Roster


def test_episodes_start_with_the_roster_and_those_in_flight_catch_up():
    roster = Roster()
    env = LargeTeamEnv(groups=scaled_groups(10), allocation="central", max_steps=40)
    options, applied = roster.start(env, {"tasks": 20})
    assert options == {"tasks": 20} and applied == frozenset()
    observations, _ = env.reset(seed=0, options=options)
    roster.set(["couriers_1"])
    applied, observations = roster.catch_up(env, applied, observations)
    assert applied == {"couriers_1"} and "couriers_1" not in observations and "couriers_1" not in env.agents
    same, again = roster.catch_up(env, applied, observations)
    assert same is applied and again is observations  # nothing changed: nothing done
    roster.set([])
    applied, observations = roster.catch_up(env, applied, observations)
    assert applied == frozenset() and "couriers_1" in observations
    roster.set(["guides_0"])
    options, applied = roster.start(env, {"offline": ["mediators_0"]})
    assert options["offline"] == ["guides_0", "mediators_0"] and applied == {"guides_0"}


def test_other_environments_have_no_roster():
    class Plain:
        agents = ["a"]

    roster = Roster()
    roster.set(["a"])
    assert roster.start(Plain(), {"x": 1}) == ({"x": 1}, frozenset())
    assert roster.catch_up(Plain(), frozenset(), {"a": 0}) == (frozenset(), {"a": 0})


def test_a_read_older_than_the_last_switch_is_ignored():
    roster = Roster()
    read_at = time.monotonic()  # a group reads the row …
    roster.set(["guides_0"])  # … an operator's switch is heard here meanwhile …
    roster.set([], as_of=read_at)  # … and the stale row does not undo it
    assert roster.offline() == {"guides_0"}
    roster.set([], as_of=time.monotonic())
    assert roster.offline() == frozenset()
