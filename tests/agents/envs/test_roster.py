"""Customer service takes its team from the spec: any number of specialists owning intents, reviewers,
coverage explained in words, rules and triage that follow the drawn roster."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from agents.envs import make_env, team_kwargs
from agents.envs.customer_service.env import AGENTS, CustomerServiceEnv, evaluate
from agents.envs.customer_service.roster import DEFAULT_ROSTER, INTENT_DESCRIPTIONS, Roster, RosterError
from agents.envs.customer_service.rules import KeywordRouter, LabelledRouter, ScriptedTeam, fallback_rules
from agents.envs.customer_service.tickets import INTENT_ACTION, INTENTS, load_tickets
from agents.envs.customer_service.triage import EMPTY_QUEUE
from agents.envs.scripted import scripted_team
from agents.spec import load_spec, spec_catalog, validate_spec

TEMPLATE = Path(__file__).resolve().parents[3] / "examples" / "customer_service.json"
REVIEWER = {"id": "quality_supervisor", "role": "quality_supervisor", "prompt": "Approve complete answers."}


def specialists(n: int) -> list[dict]:
    """``n`` specialists splitting the catalogue in contiguous groups (custom roles, prompts naming them)."""
    groups = np.array_split(np.arange(len(INTENTS)), n)
    return [
        {
            "id": f"agent_{k}",
            "role": "custom",
            "intents": [INTENTS[i] for i in group],
            "prompt": "You handle " + ", ".join(INTENTS[i].replace("_", " ") for i in group) + ".",
        }
        for k, group in enumerate(groups)
    ]


def split_logistics(doc: dict) -> dict:
    """The template with logistics split into tracking (logistics) and a new address-change agent."""
    doc = copy.deepcopy(doc)
    doc["agents"][1]["intents"] = ["order_tracking", "delivery_delay"]
    doc["agents"].append(
        {
            "id": "address_desk",
            "role": "custom",
            "prompt": "You handle address changes: update the delivery address and redirect parcels.",
            "intents": ["address_change"],
        }
    )
    return doc


@pytest.fixture(scope="module")
def template() -> dict:
    return json.loads(TEMPLATE.read_text())


@pytest.fixture(scope="module")
def tickets():
    return load_tickets("validation")[:60]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_rosters_of_two_to_six_specialists_pass_the_pettingzoo_api_test(n, tickets):
    team = [*specialists(n), REVIEWER]
    env = CustomerServiceEnv(tickets, team=team, mask_invalid=True)
    assert env.possible_agents == [a["id"] for a in team]
    parallel_api_test(env, num_cycles=20)
    observations, _ = env.reset(seed=0)
    for agent in specialists(n):
        names = env.action_names(agent["id"])
        assert names == ("pass", *(INTENT_ACTION[i] for i in agent["intents"]))
        assert observations[agent["id"]]["prompt"] == agent["prompt"]  # the prompt is an input


@pytest.mark.parametrize("n", [2, 4, 6])
def test_the_rule_team_follows_any_roster(n, tickets):
    """Ownership moves, the rules do not: a scripted team on any roster answers exactly as the shipped one."""
    router = KeywordRouter.tuned(load_tickets("train")[:400])
    shipped = evaluate(CustomerServiceEnv(tickets), ScriptedTeam(router).actions)
    roster = Roster.from_agents([*specialists(n), REVIEWER])
    drawn = evaluate(CustomerServiceEnv(tickets, team=roster), ScriptedTeam(router, roster=roster).actions)
    assert drawn["exact_match"] == shipped["exact_match"] > 0.5


def test_a_new_owner_answers_its_intent(template, tickets):
    spec = load_spec(split_logistics(template))
    env = make_env(
        "customer_service", dict(spec.environment.params), **team_kwargs("customer_service", spec.agents)
    )
    assert env.roster.owners["address_change"] == ("address_desk",)
    assert env.roster.owners["order_tracking"] == env.roster.owners["delivery_delay"] == ("logistics",)
    plain = make_env("customer_service", {}, **team_kwargs("customer_service", spec.agents))
    assert plain.action_names("logistics") == ("pass", "track_order", "explain_delay")
    assert plain.action_names("address_desk") == ("pass", "change_address")
    ticket = next(t for t in load_tickets("train") if t.intents == ("address_change",))
    team = ScriptedTeam(LabelledRouter([ticket]), roster=env.roster)
    observations, _ = env.reset(options={"ticket": ticket})
    actions = team.actions(observations)
    assert env.action_names("address_desk")[actions["address_desk"]] == "change_address"
    assert env.action_names("logistics")[actions["logistics"]] == "pass"
    env.step(actions)
    observations, _, _, _, infos = env.step(team.actions(env._observations()))
    assert infos["address_desk"]["exact_match"]


def test_the_shipped_template_names_its_intents_and_keeps_its_team(template):
    assert validate_spec(template) == []
    spec = load_spec(template)
    roster = Roster.from_agents(spec.agents)
    assert roster.ids == list(AGENTS) and roster.owners == DEFAULT_ROSTER.owners
    assert spec.agent("logistics").intents == ("order_tracking", "delivery_delay", "address_change")
    catalogue = spec_catalog()["intent_catalogues"]["customer_service"]
    assert [c["name"] for c in catalogue] == list(INTENTS)
    assert all(c["description"] == INTENT_DESCRIPTIONS[c["name"]] for c in catalogue)


@pytest.mark.parametrize(
    "change",
    [
        "split logistics",
        "second mediator",
        "merge guide and mediator",
        "two reviewers",
    ],
)
def test_valid_teams_are_accepted(template, change):
    doc = copy.deepcopy(template)
    if change == "split logistics":
        doc = split_logistics(doc)
    elif change == "second mediator":
        doc["agents"].append({**doc["agents"][2], "id": "second_mediator"})
    elif change == "merge guide and mediator":
        doc["agents"][2]["intents"] = [
            "product_question",
            "recommendation",
            "return_refund",
            "damaged_item",
            "complaint",
        ]
        doc["agents"].pop(0)
        doc["edges"] = [e for e in doc["edges"] if "shopping_guide" not in (e["source"], e["target"])]
        doc["fallback"]["rules"] = [r for r in doc["fallback"]["rules"] if r["route_to"] != "shopping_guide"]
    else:
        doc["agents"].append({**doc["agents"][3], "id": "second_reviewer"})
    assert validate_spec(doc) == []
    spec = load_spec(doc)
    env = make_env(
        "customer_service", dict(spec.environment.params), **team_kwargs("customer_service", spec.agents)
    )
    assert env.possible_agents == list(spec.agent_ids)
    assert (
        evaluate(env, scripted_team("customer_service", {}, team=spec.agents).actions, limit=20)["tickets"]
        == 20
    )


def _messages(doc: dict) -> list[tuple[str, str]]:
    return [(e.path, e.message) for e in validate_spec(doc)]


def test_coverage_errors_are_explained_in_words(template):
    doc = copy.deepcopy(template)
    doc["agents"][2]["intents"] = ["complaint"]
    assert _messages(doc) == [
        ("$.agents", "nobody owns the intents return_refund, damaged_item: give them to an agent")
    ]
    doc = copy.deepcopy(template)
    doc["agents"][0]["intents"] = ["product_question"]
    assert _messages(doc) == [("$.agents", "nobody owns the intent recommendation: give it to an agent")]


def test_a_team_without_reviewer_or_specialist_is_told_what_to_add(template):
    doc = copy.deepcopy(template)
    doc["agents"].pop(3)
    doc["edges"] = [e for e in doc["edges"] if "quality_supervisor" not in (e["source"], e["target"])]
    messages = [m for _, m in _messages(doc)]
    assert messages == [
        "nobody reviews the draft answer: add a quality_supervisor to approve or send it back"
    ]
    only_reviewer = {"name": "x", "agents": [REVIEWER], "environment": {"name": "customer_service"}}
    messages = [m for _, m in _messages(only_reviewer)]
    assert any("no specialist" in m for m in messages)
    assert not any("remove agents" in m for m in messages)


def test_agent_level_problems_point_at_the_agent(template):
    doc = copy.deepcopy(template)
    doc["agents"].append(
        {"id": "helper", "role": "custom", "prompt": "You help with whatever comes up, kindly."}
    )
    doc["agents"][0]["intents"] = ["product_question", "recommendation", "teleportation"]
    doc["agents"][3]["intents"] = ["complaint"]
    found = dict(_messages(doc))
    assert found["$.agents[4].intents"] == "agent helper owns no intents: tick the intents it handles"
    assert "unknown intents teleportation" in found["$.agents[0].intents"]
    assert "owns no intents: clear them" in found["$.agents[3].intents"]
    doc["agents"][0]["intents"] = ["complaint", "complaint"]
    assert "lists an intent twice" in dict(_messages(doc))["$.agents[0].intents"]
    with pytest.raises(RosterError, match="helper owns no intents"):
        Roster.from_agents(doc["agents"])


def test_reviewers_send_back_before_they_approve(tickets):
    team = [*specialists(2), REVIEWER, {**REVIEWER, "id": "second_reviewer"}]
    env = CustomerServiceEnv(tickets, team=team)
    env.reset(options={"ticket_index": 0})
    env.step({"agent_0": 1})
    assert env._draft
    env.step({"quality_supervisor": 1, "second_reviewer": 2})  # approve + send back: the draft goes back
    assert not env._draft and not env._approved


def test_triage_queues_belong_to_the_drawn_agents(template):
    spec = load_spec(split_logistics(template))
    env = make_env(
        "customer_service", {"role_view": "triage"}, **team_kwargs("customer_service", spec.agents)
    )
    text = "where is my parcel? also I moved, please send it to 12 Elm Street"
    queues = env._queues(text)
    assert "where is my parcel?" in queues["logistics"]
    assert "12 Elm Street" in queues["address_desk"]
    assert queues["dispute_mediator"] == EMPTY_QUEUE


def test_fallback_rules_route_to_the_drawn_agents():
    router = KeywordRouter.tuned(load_tickets("train")[:400])
    roster = Roster.from_agents([*specialists(4), REVIEWER])
    rules = fallback_rules(router, roster=roster)
    assert [r["route_to"] for r in rules] == roster.specialists


def test_intents_belong_to_environments_that_have_a_catalogue():
    doc = json.loads((TEMPLATE.parent / "number_guessing.json").read_text())
    doc["agents"][0]["intents"] = ["complaint"]
    assert _messages(doc) == [
        ("$.agents[0].intents", "agents of environment 'number_guess' own no intents: clear them")
    ]


def test_intents_that_are_not_a_list_get_only_the_validators_type_error():
    """The team check leaves a malformed `intents` to the spec validator instead of crashing on it."""
    template = json.loads(TEMPLATE.read_text())
    index = next(i for i, a in enumerate(template["agents"]) if a.get("intents"))
    for bad, kind in ((3, "a number"), (True, "a boolean"), ("refund_request", "a string")):
        doc = json.loads(json.dumps(template))
        doc["agents"][index]["intents"] = bad
        assert [str(e) for e in validate_spec(doc)] == [
            f"$.agents[{index}].intents: must be an array, got {kind}"
        ]
