"""Complexity advisor: indicators follow the spec's structure, and the verdict follows docs/design.md#complexity-advisor."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from agents.advisor import Advice, advise
from agents.spec import SpecValidationError, load_spec

TEMPLATES = Path(__file__).resolve().parents[2] / "examples"


def template(name: str) -> dict:
    return json.loads((TEMPLATES / f"{name}.json").read_text(encoding="utf-8"))


def pipeline(n: int = 3) -> dict:
    """A linear pipeline of relaying roles with only a task reward: the textbook 'rules are enough' case."""
    ids = [f"step_{i}" for i in range(n)]
    return {
        "name": "Pipeline",
        "agents": [{"id": a, "role": "informant"} for a in ids],
        "edges": [
            {"source": a, "target": b, "kind": "dependency"} for a, b in zip(ids, ids[1:], strict=False)
        ]
        + [{"source": a, "target": b} for a, b in zip(ids, ids[1:], strict=False)],
        "communication": {"message_cost": 0.0},
        "reward": {
            "terms": [{"term": "task", "weights": {"exploration": 1, "exploitation": 1, "transfer": 1}}]
        },
    }


def test_rich_workflows_get_marl_and_a_linear_pipeline_gets_rules():
    code = advise(template("code_generation"))
    assert code.recommendation == "marl"
    assert min(code.decision_density, code.uncertainty, code.reward_conflict) >= 0.3
    simple = advise(pipeline())
    assert simple.recommendation == "rules"
    assert simple.decision_density < 0.3 and simple.score < code.score
    assert any("rules" in r or "DAG" in r for r in simple.reasons)


@pytest.mark.parametrize(
    "name, expected",
    [
        # as the verdicts measured them (bench/verdicts.py, docs/experiments/2026-12-05-verdicts.md)
        ("customer_service", "supervised"),  # routing: PPO after the supervised start changes nothing
        ("number_guessing", "marl"),  # learned communication 1.00 against 0.06 with the messages cut
        ("number_guess_n64", "marl"),
        ("research_report", "marl"),  # IPPO +8 points over the rules; the shipped MAPPO +1 (within noise)
        ("collaborative_writing", "marl"),
        ("code_generation", "marl"),
    ],
)
def test_the_shipped_templates_get_the_recommendation_their_verdicts_bear_out(name, expected):
    assert advise(template(name)).recommendation == expected


def test_routing_is_supervised_because_its_decisions_are_labelled_and_taken_once():
    cs = advise(template("customer_service"))
    assert cs.factors["horizon"] == 0.5  # two steps (specialists, then the supervisor), not max_steps = 6
    assert any("supervised learning" in r for r in cs.reasons)
    assert "supervised" in cs.to_dict()["recommendation"]


def test_an_environment_may_declare_its_own_profile(monkeypatch):
    from agents.advisor import EnvironmentProfile
    from agents.envs import env_class

    doc = template("code_generation")
    cls = env_class("code_generation")
    monkeypatch.setattr(
        cls,
        "complexity_profile",
        EnvironmentProfile(
            0.0, "max_steps", 14, "declared by the class", labelled=True, decisions_per_agent=1
        ),
        raising=False,
    )
    advice = advise(doc)
    assert "declared by the class" in advice.reasons
    assert advice.factors["environment_randomness"] == 0.0
    # labelled, but four agents in a chain decide one after another: not a one-decision routing task
    assert advice.recommendation == "marl"


def test_each_indicator_responds_to_the_structure_it_reads():
    base = pipeline(4)
    a0 = advise(base)

    # decision density: deciding roles and a join in the dependency graph
    dense = copy.deepcopy(base)
    for agent in dense["agents"]:
        agent["role"] = "reviewer"
    dense["edges"].append({"source": "step_0", "target": "step_3", "kind": "dependency"})
    a1 = advise(dense)
    assert a1.decision_density > a0.decision_density + 0.3
    assert a1.factors["branching"] > a0.factors["branching"]

    # uncertainty: an unpredictable environment and a receiver weighing many sources
    noisy = copy.deepcopy(template("number_guessing"))
    quiet = copy.deepcopy(noisy)
    quiet["edges"] = [{"source": "clue_0", "target": "guesser"}]
    assert advise(noisy).uncertainty > advise(quiet).uncertainty

    # reward conflict: immediate costs against a delayed task reward, and a longer horizon
    costly = copy.deepcopy(base)
    costly["reward"]["terms"].append(
        {
            "term": "communication_cost",
            "weights": {"exploration": -0.5, "exploitation": -0.5, "transfer": -0.5},
        }
    )
    a2 = advise(costly)
    assert a2.reward_conflict > a0.reward_conflict
    assert a2.factors["delayed_vs_immediate"] > 0.5
    short = advise(pipeline(2)).factors["horizon"]
    long = advise(pipeline(6)).factors["horizon"]
    assert long > short


def test_more_than_five_agents_warns_and_one_agent_means_rules():
    big = pipeline(6)
    assert advise(big).warnings == ()  # informants only share what they hold: no coordination cost
    for agent in big["agents"]:
        agent["role"] = "planner"
    advice = advise(big)
    assert [w.path for w in advice.warnings] == ["$.agents"]
    assert "docs/design.md#complexity-advisor" in advice.warnings[0].message
    assert advise(pipeline(5)).warnings == ()
    solo = {"name": "Solo", "agents": [{"id": "writer", "role": "writer"}]}
    one = advise(solo)
    assert one.recommendation == "rules" and any("single agent" in r for r in one.reasons)


def test_advice_is_a_pure_function_with_json_output():
    doc = template("code_generation")
    a = advise(doc)
    assert a == advise(load_spec(doc)) == advise(copy.deepcopy(doc))
    assert isinstance(a, Advice)
    out = a.to_dict()
    json.dumps(out)
    assert set(out) >= {
        "decision_density",
        "uncertainty",
        "reward_conflict",
        "score",
        "recommendation",
        "reasons",
        "warnings",
    }
    for key in ("decision_density", "uncertainty", "reward_conflict", "score"):
        assert 0.0 <= out[key] <= 1.0
    assert out["recommendation"] in {"rules", "supervised", "marl"}
    assert len(out["reasons"]) >= 4  # one per indicator plus the verdict
    with pytest.raises(AttributeError):
        a.recommendation = "marl"  # type: ignore[misc]


def test_number_guess_is_flagged_as_a_communication_test_bed():
    a = advise(template("number_guessing"))
    # one decision, one step, but the clues are with other agents: learned communication pays
    assert a.recommendation == "marl" and a.reward_conflict < 0.3
    assert any("spread over the agents" in r for r in a.reasons)
    assert any("test bed" in r for r in a.reasons)
    silent = template("number_guessing")
    silent["communication"]["enabled"] = False
    assert advise(silent).recommendation == "rules"  # nobody can hear the clues: nothing to learn
    assert a.warnings == ()  # 7 agents, but informants and distractors only share what they hold


def test_invalid_documents_are_refused_with_a_value_error():
    with pytest.raises(SpecValidationError):
        advise({"name": "x", "agents": []})


def test_a_large_team_is_counted_by_its_members_as_well_as_its_roles():
    """The Large support team draws 5 groups of 4 (the gallery's card says 20 agents): the advisor says both."""
    reasons = advise(template("large_team")).reasons
    assert "4 of 5 roles (16 of 20 agents" in reasons[0], reasons[0]
    assert any(r.startswith("5 roles, 20 agents: the 2–5 sweet spot counts the roles") for r in reasons), (
        reasons
    )
    doc = template("large_team")
    doc["environment"]["params"]["groups"][0] = doc["environment"]["params"]["groups"][0].replace("*4", "*10")
    assert any(r.startswith("5 roles, 26 agents") for r in advise(doc).reasons)
    plain = advise(template("code_generation")).reasons
    assert " agents make non-trivial choices" in plain[0] and not any(" roles, " in r for r in plain)
