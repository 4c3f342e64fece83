"""bench/compose.py --quick runs end to end and writes every documented key; the MAPPO arm's team and its
prompt-swap share mean what bench/README.md says."""

from __future__ import annotations

import json

import pytest

from agents.envs.customer_service.env import CustomerServiceEnv, evaluate
from agents.envs.customer_service.roster import Roster
from agents.envs.customer_service.rules import ScriptedTeam
from agents.envs.customer_service.tickets import load_tickets
from agents.spec import load_spec
from bench.compose import ADDRESS, SPLIT, TEMPLATE, TRACKING, mappo_swap, split_logistics


@pytest.mark.slow
def test_quick_compose_writes_every_key(run_quick_bench):
    result = run_quick_bench("compose", "--threads", "1")
    compose = result["compose"]
    assert result["quick"] is True and result["tickets"] == {"train": 300, "test": 100}
    assert set(compose["teams"]) == {"3", "4", "5"}
    for n, team in compose["teams"].items():
        assert len(team["specialists"]) == int(n)
        for key in ("exact_match", "rules_exact_match", "zero_shot_routing", "chance"):
            assert 0 <= team[key] <= 1
        assert team["chance"] == pytest.approx(1 / int(n))
        assert 0 <= team["prompt_swap"]["share"] <= 1
    for key in ("zero_shot_routing", "chance", "prompt_swap_share"):
        assert 0 <= compose[key] <= 1
    assert compose["zero_shot_routing"] > compose["chance"]  # a prompt that names the job routes above chance
    assert "mappo" not in compose  # the MAPPO arm runs only when asked for (--arm mappo / all)


@pytest.mark.nightly  # trains the split template (minutes); CI's browser test trains and serves the same split
@pytest.mark.timeout(900)
def test_quick_mappo_arm_trains_the_split_template_and_scores_it(run_quick_bench):
    result = run_quick_bench("compose", "--arm", "mappo", timeout=800)
    compose = result["compose"]
    assert set(compose) == {"mappo"} and result["arm"] == "mappo"  # the prompt arm's keys are not written
    team = compose["mappo"]["4"]
    assert team["status"] == "succeeded" and team["specialists"][1:3] == list(SPLIT)
    for key in ("exact_match", "rules_exact_match", "intent_f1", "rules_intent_f1"):
        assert 0 <= team[key] <= 1
    assert team["rules_exact_match"] > 0.5  # the rules follow the split roster (a wrong roster scores ~0)
    swap = team["prompt_swap"]
    assert swap["pair"] == list(SPLIT) and 0 <= swap["exact_match_swapped"] <= 1
    for key in ("share", "owner_kept", "silent"):
        assert 0 <= swap[key] <= 1
    assert swap["tickets"] > 0  # even the quick budget's team has the split specialists answer tickets
    # shares of the same tickets: moved to the other, kept by the owner or dropped never overlap
    assert swap["share"] + swap["owner_kept"] + swap["silent"] <= 1 + 1e-9
    # the template deals roles in training, so even the quick team does what its prompts say: swapped
    # prompts move most of the work. A smoke check, not a figure: on 15-26 tickets the quick share swings with
    # the seed whatever the evidence (seeds 0-2: 0.60 / 0.82 / 0.53 as shipped, 1.0 / 0.42 / 0.52 with
    # actor_evidence reader); at the template's budget both move 0.98-1.0 (decision 0030's addendum)
    assert swap["share"] >= 0.5 and team["exact_match"] > 0.5, swap


def test_split_roster_is_a_valid_spec_with_four_specialists():
    doc = split_logistics(json.loads(TEMPLATE.read_text()))
    team = load_spec(doc, require_environment=True)  # the validator accepts the drawn team
    roster = Roster.from_agents(team.agents)
    assert roster.specialists == ["shopping_guide", "tracking", "address_changes", "dispute_mediator"]
    assert roster.owners["address_change"] == ("address_changes",)
    assert roster.owners["order_tracking"] == roster.owners["delivery_delay"] == ("tracking",)
    assert (
        roster.prompt("tracking") == TRACKING["prompt"]
        and roster.prompt("address_changes") == ADDRESS["prompt"]
    )
    assert "logistics" not in json.dumps(doc["edges"]) + json.dumps(doc["fallback"])
    linked = {(e["source"], e["target"]) for e in doc["edges"] if e["kind"] == "communication"}
    assert {("tracking", "dispute_mediator"), ("address_changes", "dispute_mediator")} <= linked


class PromptReadingTeam:
    """A hand-written team whose two split specialists act on what their prompt names (the ticket's true
    intents looked up by text): the tracking prompt takes tracking and delay tickets, the address prompt
    address tickets, each with its first answer; the others follow the rules."""

    def __init__(self, tickets, roster):
        self.intents = {t.text: set(t.intents) for t in tickets}
        self.rules = ScriptedTeam(roster=roster)
        self.jobs = {
            TRACKING["prompt"]: {"order_tracking", "delivery_delay"},
            ADDRESS["prompt"]: {"address_change"},
        }

    def actions(self, observations):
        actions = self.rules.actions(observations)
        for agent in SPLIT:
            if agent in observations:
                obs = observations[agent]
                wanted = self.jobs[obs["prompt"]] & self.intents[obs["ticket"]]
                actions[agent] = 1 if wanted and obs["step"] == 0 else 0
        return actions


def test_swap_share_is_one_for_a_prompt_reading_team_and_zero_for_a_prompt_blind_one():
    tickets = load_tickets("test")[:120]
    roster = Roster.from_agents(split_logistics(json.loads(TEMPLATE.read_text()))["agents"])

    def make_env(r):
        return CustomerServiceEnv(tickets, team=r, shuffle=False)

    blind = ScriptedTeam(roster=roster).actions  # reads the ticket, never the prompt
    swap = mappo_swap(blind, make_env, roster, SPLIT)
    assert swap["tickets"] > 10 and swap["share"] == 0.0 and swap["owner_kept"] == 1.0
    assert swap["exact_match_swapped"] == evaluate(make_env(roster), blind)["exact_match"]
    reading = PromptReadingTeam(tickets, roster).actions
    swap = mappo_swap(reading, make_env, roster, SPLIT)
    assert swap["tickets"] > 10 and swap["share"] == 1.0 and swap["owner_kept"] == 0.0
    assert (
        swap["exact_match_swapped"] < evaluate(make_env(roster), reading)["exact_match"]
    )  # wrong answers now
