"""The phased pipelines (research report, collaborative writing, code generation) take their team from the
spec: the roles each needs in the numbers it can use, ordered by the dependency edges (agents.envs.pipeline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pettingzoo.test import parallel_api_test

from agents.envs import env_class, make_env, team_kwargs
from agents.envs.pipeline import PipelineTeam, TeamError, team_problems
from agents.envs.scripted import scripted_team
from agents.spec import load_spec, validate_spec

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
NAMES = ("research_report", "collaborative_writing", "code_generation")


def members(*pairs: str) -> list[dict]:
    """Team entries from "id:role" strings."""
    return [{"id": p.split(":")[0], "role": p.split(":")[-1]} for p in pairs]


BIGGER = {
    "research_report": members(
        "scout_a:researcher",
        "scout_b:researcher",
        "analyst",
        "writer",
        "checker_a:reviewer",
        "checker_b:reviewer",
    ),
    "collaborative_writing": members("planner", "writer", "polisher", "editor:polisher"),
    "code_generation": members(
        "architect", "implementer", "unit:tester", "fuzz:tester", "lead:code_reviewer", "peer:code_reviewer"
    ),
}
"""Rosters with several agents of a role, in the numbers each environment can use."""


def chain(team: list[dict]) -> list[dict]:
    """Dependency edges that run through ``team`` in its order."""
    return [
        {"source": a["id"], "target": b["id"], "kind": "dependency"}
        for a, b in zip(team, team[1:], strict=False)
    ]


def episode(env, team, seed: int) -> tuple[float, float, int, dict]:
    """(success, team reward, steps, per-agent rewards) of the scripted team for one seeded episode."""
    obs, _ = env.reset(seed=seed)
    total, per_agent, info = 0.0, dict.fromkeys(env.possible_agents, 0.0), {}
    while env.agents:
        obs, rewards, _, _, infos = env.step(team.actions(obs))
        total += sum(rewards.values())
        for agent, reward in rewards.items():
            per_agent[agent] += reward
        info = next(iter(infos.values()))
    return round(info.get("success", 0.0), 6), round(total, 6), info["steps"], per_agent


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("size", ["default", "bigger"])
def test_rosters_of_every_size_pass_the_parallel_api_test(name, size):
    team = None if size == "default" else BIGGER[name]
    env = make_env(name, {}, **({} if team is None else {"team": team, "edges": chain(team)}))
    parallel_api_test(env, num_cycles=200)
    if team is not None:
        assert env.possible_agents == [a["id"] for a in team]


BEFORE = {
    "research_report": (
        [0.808571, 0.773571, 0.745, 0.653571, 0.773571, 0.745],
        [3.924286, 3.684286, 3.57, 3.104286, 3.684286, 3.57],
        [17, 17, 17, 17, 17, 16],
    ),
    "collaborative_writing": (
        [0.633333, 0.816667, 0.725, 0.816667, 0.725, 0.816667],
        [2.15, 2.8, 2.575, 2.8, 2.575, 2.8],
        [8, 8, 10, 8, 10, 8],
    ),
    "code_generation": (
        [1.0, 1.0, 0.0, 1.0, 1.0, 1.0],
        [3.97, 3.85, 1.46, 3.85, 3.97, 4.06],
        [9, 11, 5, 11, 9, 5],
    ),
}
"""(successes, team rewards, steps) of the scripted team on each shipped example, seeds 0-5, recorded with the
fixed four-role (three-role) environments before they took their team from the spec."""


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_examples_score_as_before(name):
    spec = load_spec(EXAMPLES / f"{name}.json")
    drawn = team_kwargs(name, spec.agents, spec.edges)
    assert drawn["edges"] and [m["id"] for m in drawn["team"]] == list(spec.agent_ids)
    env = make_env(name, dict(spec.environment.params), **drawn)
    team = scripted_team(name, dict(spec.environment.params), team=drawn["team"])
    rows = [episode(env, team, seed)[:3] for seed in range(6)]
    assert tuple(list(column) for column in zip(*rows, strict=True)) == BEFORE[name]


@pytest.mark.parametrize("name", NAMES)
def test_the_scripted_team_follows_a_bigger_roster(name):
    default = make_env(name, {})
    bigger = make_env(name, {}, team=BIGGER[name], edges=chain(BIGGER[name]))
    rules = scripted_team(name, {}, team=BIGGER[name])
    for seed in range(4):
        success, _, steps, per_agent = episode(bigger, rules, seed)
        assert success == episode(default, scripted_team(name, {}), seed)[0]  # the same work, shared out
        assert set(per_agent) == {a["id"] for a in BIGGER[name]}


def test_two_researchers_split_the_sources_and_both_reviewers_see_the_draft():
    team = BIGGER["research_report"]
    env = make_env("research_report", {}, team=team, edges=chain(team))
    rules = scripted_team("research_report", {}, team=team)
    obs, _ = env.reset(seed=3)
    acted = []
    while env.agents:
        actor = env.actor
        obs, *_ = env.step(rules.actions(obs))
        acted.append((actor, env.log[-1]))
    picks = [who for who, line in acted if "pick_source" in line]
    assert picks.count("scout_a") == 2 and picks.count("scout_b") == 2
    assert picks.index("scout_b") > len(picks) - 1 - picks[::-1].index("scout_a")  # a before b
    verdicts = [(who, line.split(": ")[1]) for who, line in acted if line.endswith(("accept", "send_back"))]
    assert verdicts[-2:] == [("checker_a", "accept"), ("checker_b", "accept")]


def test_the_dependency_edges_set_the_turn_order_within_a_stage():
    team = members("r1:researcher", "r2:researcher", "analyst", "writer", "reviewer")
    edges = [{"source": "r2", "target": "r1", "kind": "dependency"}, {"source": "r1", "target": "r2"}]
    built = PipelineTeam.build("research report", env_class("research_report").roles, team, edges)
    assert built.turns["research"] == ("r2", "r1")  # the communication edge orders nothing
    env = make_env("research_report", {}, team=team, edges=[("r2", "r1")])
    env.reset(seed=0)
    assert env.actor == "r2"


@pytest.mark.parametrize(
    ("name", "team", "edges", "words"),
    [
        (
            "research_report",
            members("researcher", "analyst", "writer"),
            [],
            "needs a reviewer to accept or send back",
        ),
        (
            "research_report",
            members("researcher", "a1:analyst", "a2:analyst", "writer", "reviewer"),
            [],
            "at most 1 analyst but a1, a2 are all analysts: give one of them another role",
        ),
        (
            "collaborative_writing",
            members("planner", "writer", "polisher", "boss:reviewer"),
            [],
            "a reviewer has no part in collaborative writing: make it one of planner, writer, polisher",
        ),
        (
            "code_generation",
            members("architect", "implementer", "tester", "code_reviewer"),
            [("code_reviewer", "tester")],
            "the tester tester is made to wait for the code_reviewer code_reviewer, but the test comes "
            "before the review: reverse the dependency edge code_reviewer → tester",
        ),
        (
            "code_generation",
            members("architect", "implementer", "t1:tester", "t2:tester", "code_reviewer"),
            [("t1", "t2"), ("t2", "t1")],
            "the dependency edges go round in a circle (t1 → t2 → t1), so nobody can start",
        ),
    ],
)
def test_an_invalid_roster_is_explained_in_words(name, team, edges, words):
    cls = env_class(name)
    messages = [e.message for e in cls.validate_team(team, {}, edges=edges)]
    assert any(words in m for m in messages), messages
    assert not any("remove agents" in m for m in messages)
    with pytest.raises(TeamError, match="reverse|add an agent|another role|no part|circle"):
        make_env(name, {}, team=team, edges=edges)


def test_the_spec_validator_takes_a_bigger_roster_and_explains_a_missing_role():
    doc = json.loads((EXAMPLES / "research_report.json").read_text(encoding="utf-8"))
    second = dict(doc["agents"][0], id="researcher_2")
    doc["agents"].append(second)
    doc["edges"].append({"source": "researcher", "target": "researcher_2", "kind": "dependency"})
    assert validate_spec(doc) == []
    doc["agents"] = [a for a in doc["agents"] if a["role"] != "reviewer"]
    doc["edges"] = [e for e in doc["edges"] if "reviewer" not in (e["source"], e["target"])]
    problems = validate_spec(doc)
    assert [p.path for p in problems] == ["$.agents"]
    assert "research report needs a reviewer to accept or send back the draft" in problems[0].message


def test_problems_name_the_agent_path():
    problems = team_problems(
        "research report", env_class("research_report").roles, members("researcher", "x:boss")
    )
    assert (
        "$.agents[1].role",
        "a boss has no part in research report: make it one of researcher, analyst, writer, reviewer",
    ) in problems


def test_a_team_with_two_agents_of_one_id_is_refused_not_looped_on():
    team = members("researcher", "analyst", "writer", "reviewer", "writer:reviewer")
    with pytest.raises(TeamError, match="two agents are called writer"):
        make_env("research_report", {}, team=team)
