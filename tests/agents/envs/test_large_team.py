"""The large team: PettingZoo's API at 10 and 100 agents, groups and fault schedules checked in the spec,
allocation and state sync chosen by the spec, failure injection, and a tiny training run through the product path."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from agents.envs import make_env, team_kwargs
from agents.envs.large_team import OBS_FIELDS, LargeTeamEnv, scaled_groups
from agents.spec import load_spec, validate_spec

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "large_team.json"
IN_TIME = OBS_FIELDS.index("own_in_time")


def play(env: LargeTeamEnv, seed: int = 0, bid=lambda obs: 0) -> dict:
    """One episode; returns the last step's info (the episode's figures)."""
    observations, _ = env.reset(seed=seed)
    info: dict = {}
    while env.agents:
        observations, _, _, _, infos = env.step({a: bid(o) for a, o in observations.items()})
        info = next(iter(infos.values()), info)
    return info


def in_time_bidder(obs: np.ndarray) -> int:
    """Bid the top level (2) when this agent would finish the task by its deadline, else pass."""
    return 2 if obs[IN_TIME] > 0.5 else 0


@pytest.mark.parametrize("n", [10, 100])
def test_passes_the_pettingzoo_parallel_api_test(n):
    env = LargeTeamEnv(groups=scaled_groups(n), max_steps=40, fault_schedule=["guides_0@5"])
    assert len(env.possible_agents) == n
    parallel_api_test(env, num_cycles=40)


def test_groups_expand_into_members_and_the_spec_checks_them():
    env = LargeTeamEnv(groups=["desk*3: presales=1 shipping=0.5 cap=2", "solo: dispute=1 quality=1"])
    assert env.possible_agents == ["desk_0", "desk_1", "desk_2", "solo"]
    assert list(env.capacity) == [2, 2, 2, 4]
    doc = json.loads(EXAMPLE.read_text())
    doc["environment"]["params"]["groups"] = ["guides*4: presales=1 cap=99", "couriers: teleport=1"]
    paths = {e.path: e.message for e in validate_spec(doc)}
    assert "cap must be a whole number" in paths["$.environment.params.groups[0]"]
    assert "unknown task kind(s) teleport" in paths["$.environment.params.groups[1]"]
    doc = json.loads(EXAMPLE.read_text())
    doc["environment"]["params"]["fault_schedule"] = ["nobody@3", "guides_0@9999"]
    paths = {e.path: e.message for e in validate_spec(doc)}
    assert "no agent nobody" in paths["$.environment.params.fault_schedule[0]"]
    assert "before the episode ends" in paths["$.environment.params.fault_schedule[1]"]
    doc = json.loads(EXAMPLE.read_text())
    doc["agents"] = doc["agents"][:-1]  # the generalists' box is gone but their group stays
    assert any("add generalists" in e.message for e in validate_spec(doc))


def test_the_example_builds_its_team_of_twenty_from_five_boxes():
    spec = load_spec(EXAMPLE, require_environment=True)
    assert len(spec.agents) == 5 and spec.training.policy_sharing == "shared"
    params = dict(spec.environment.params)
    env = make_env("large_team", params, **team_kwargs("large_team", spec.agents))
    assert len(env.possible_agents) == 20 == len(LargeTeamEnv.member_ids(params))


def test_the_allocation_option_decides_who_gets_each_task():
    groups = scaled_groups(20)
    figures = {how: play(LargeTeamEnv(groups=groups, allocation=how)) for how in ("central", "round_robin")}
    assert figures["central"]["in_time"] > figures["round_robin"]["in_time"] + 0.2
    passing = play(LargeTeamEnv(groups=groups, allocation="auction"))  # nobody bids: every task dropped
    assert passing["dropped"] == 1.0 and passing["in_time"] == 0.0
    learned = play(LargeTeamEnv(groups=groups, allocation="auction"), bid=in_time_bidder)
    assert learned["in_time"] > figures["central"]["in_time"]  # declining hopeless tasks keeps others in time
    env = LargeTeamEnv(groups=groups, allocation="fixed_auction")
    play(env)
    assert all(a["bids"] for a in env.allocations)  # the library's sealed bids are recorded per task
    assert {a["winner"] for a in env.allocations} >= {0, 1}


def test_gossip_costs_fewer_messages_than_the_controller_and_its_views_lag():
    groups = scaled_groups(20)
    gossip = LargeTeamEnv(groups=groups, allocation="central", state_sync="gossip")
    central = LargeTeamEnv(groups=groups, allocation="central", state_sync="central")
    g, c = play(gossip), play(central)
    assert g["changes"] == c["changes"] > 100
    assert 0 < g["messages"] < 0.5 * c["messages"] and c["messages"] == 2 * 20 * c["changes"]
    assert g["rounds_p95"] <= g["rounds_bound"] and g["gossip_rounds"] > 10
    gossip.reset(seed=1)
    central.reset(seed=1)
    gossip.step({a: 0 for a in gossip.agents})
    central.step({a: 0 for a in central.agents})
    views = gossip.state_sync.believed()[:, :, 0]
    assert (views != views[0]).any()  # gossip: some agents have not heard the newest entries yet
    assert (central.state_sync.believed()[:, :, 0] == central.state_sync.believed()[0, :, 0]).all()


def test_anti_entropy_runs_past_fifty_agents_only():
    assert play(LargeTeamEnv(groups=scaled_groups(100), max_steps=800))["anti_entropy_runs"] > 0
    assert play(LargeTeamEnv(groups=scaled_groups(50), max_steps=800))["anti_entropy_runs"] == 0


def test_a_scheduled_fault_takes_the_agent_offline_and_loses_what_it_held():
    env = LargeTeamEnv(groups=scaled_groups(20), allocation="central", fault_schedule=["guides_0@50"])
    observations, _ = env.reset(seed=0)
    while env.t < 49:
        observations, *_ = env.step(dict.fromkeys(env.agents, 0))
    _, _, terms, _, _ = env.step(dict.fromkeys(env.agents, 0))
    assert terms["guides_0"] and not any(v for a, v in terms.items() if a != "guides_0")
    assert "guides_0" not in env.agents and len(env.agents) == 19
    while env.agents:
        *_, infos = env.step(dict.fromkeys(env.agents, 0))
    figures = next(iter(infos.values()))
    assert figures["lost"] > 0 and 0 < figures["in_time_after"] <= 1
    assert all(a["winner"] != 0 for a in env.allocations[50:])  # nobody gives it work afterwards


def test_a_tiny_training_run_through_the_product_path(tmp_path):
    import torch

    from training import api

    torch.set_num_threads(1)
    doc = json.loads(EXAMPLE.read_text())
    doc["environment"]["params"] |= {
        "groups": scaled_groups(10),
        "max_steps": 20,
        "fault_schedule": ["guides_0@10"],
    }
    doc["agents"] = [a for a in doc["agents"] if a["id"] in {g.split("*")[0] for g in scaled_groups(10)}]
    doc["training"] |= {
        "episodes": 4,
        "batch_size": 2,
        "eval_every": 4,
        "eval_episodes": 2,
        "checkpoint_every": 4,
    }
    result = api.train(doc, tmp_path / "run", resume=False)
    assert result.status == "succeeded" and result.metrics["episode"] == 4
    assert 0 <= result.metrics["success"] <= 1 and result.metrics["messages_per_episode"] > 0
    assert_evaluations_report_the_allocation(tmp_path / "run" / "events.jsonl")
    # served with an agent taken offline for the request (a reset option): it neither decides nor wins
    from serving.runtime import TeamRuntime

    team = load_spec(doc, require_environment=True)
    runtime = TeamRuntime.from_spec_checkpoint(team, tmp_path / "run" / "checkpoints" / "mappo" / "last")
    served = runtime.run(options={"offline": ["guides_0"]}, seed=3)
    assert served["status"] == "truncated" and served["steps"] == 20
    deciders = {d["agent"] for d in served["decisions"]}
    assert "guides_0" not in deciders and len(deciders) == 9
    assert served["info"]["lost"] == 0 and served["info"]["in_time"] > 0
    assert_decisions_carry_the_bids(served["decisions"])


def assert_evaluations_report_the_allocation(events_file: Path) -> None:
    """Each evaluation emits an "allocation" event as declared: a backlog row per agent over the episode's
    last tasks, wins that add up with the drops to the tasks, and both message counts."""
    from training.event_payloads import payload_problems

    events = [json.loads(line) for line in events_file.read_text().splitlines()]
    summaries = [e["payload"] for e in events if e["type"] == "allocation"]
    assert summaries and all(not payload_problems("allocation", p) for p in summaries)
    last = summaries[-1]
    assert len(last["agents"]) == 10 and last["allocation"] == "auction" and last["state_sync"] == "gossip"
    assert last["tasks"] == list(range(20)) and all(len(row) == 20 for row in last["backlog"])
    assert sum(last["wins"]) + last["dropped"] == 20
    assert last["gossip_messages"] > 0 and last["central_messages"] > 0


def assert_decisions_carry_the_bids(decisions: list[dict]) -> None:
    """Every decision record carries its step's allocation: one task per step, the same for every agent of the
    step, the bids by agent name, and a winner who placed the highest bid (or nobody when no one bid)."""
    by_step: dict[int, list[dict]] = {}
    for d in decisions:
        by_step.setdefault(d["step"], []).append(d["reason"]["allocation"])
    assert sorted(by_step) == list(range(1, 21))
    tasks = []
    for allocations in by_step.values():
        first = allocations[0]
        assert all(a == first for a in allocations)
        tasks.append(first["task"])
        bids, winner = first["bids"], first["winner"]
        assert "guides_0" not in bids and winner != "guides_0"
        if winner is None:
            assert not bids
        else:
            assert bids[winner] == max(bids.values()) > 0
    assert tasks == list(range(20))
    assert any(a["bids"] for allocations in by_step.values() for a in allocations)


def test_an_operator_takes_agents_offline_through_reset_options():
    env = LargeTeamEnv(groups=scaled_groups(20), allocation="central", fault_schedule=["couriers_0@30"])
    env.reset(seed=0, options={"offline": ["guides_0"], "faults": ["mediators_1@10"]})
    assert "guides_0" not in env.agents and len(env.agents) == 19
    figures = play_on(env)
    assert all(a["winner"] != 0 for a in env.allocations)  # guides_0 is agent 0
    assert not env.online[env.possible_agents.index("mediators_1")] and figures["in_time_after"] is not None
    with pytest.raises(ValueError, match="no agent nobody"):
        env.reset(seed=0, options={"offline": ["nobody"]})


def play_on(env: LargeTeamEnv) -> dict:
    """The rest of an episode already reset, everybody passing; the last info."""
    info: dict = {}
    while env.agents:
        *_, infos = env.step(dict.fromkeys(env.agents, 0))
        info = next(iter(infos.values()), info)
    return info


def test_each_step_reports_its_allocation_by_name_and_the_episode_summarises_backlogs():
    env = LargeTeamEnv(groups=scaled_groups(10), allocation="fixed_auction", max_steps=60)
    env.reset(seed=0)
    reported = []
    while env.agents:
        *_, infos = env.step(dict.fromkeys(env.agents, 0))
        reported.append(next(iter(infos.values()))["allocation"])
    names = env.possible_agents
    for said, kept in zip(reported, env.allocations, strict=True):
        assert said["task"] == kept["task"] and said["bids"] == {names[i]: b for i, b in kept["bids"].items()}
        assert said["winner"] == (names[kept["winner"]] if kept["winner"] is not None else None)
    summary = env.allocation_summary(window=20)
    assert summary["tasks"] == list(range(40, 60)) and len(summary["backlog"]) == 10
    assert all(len(row) == 20 and min(row) >= 0 for row in summary["backlog"])
    assert sum(summary["wins"]) + summary["dropped"] == 60 and max(summary["backlog"][0]) > 0
    assert summary["messages"] == summary["gossip_messages"] < summary["central_messages"]
