"""`deal_roles`: every specialist may answer any intent and each training ticket deals the specialists' jobs
(intents and prompt) to random seats, so a policy must read its prompt; chosen tickets play the drawn team."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from pettingzoo.test import parallel_api_test

from agents.envs.customer_service.env import CustomerServiceEnv, evaluate
from agents.envs.customer_service.roster import (
    CATALOGUE_ACTIONS,
    DEFAULT_ROSTER,
    Roster,
    drawn_roster,
)
from agents.envs.customer_service.rules import ExpertTeam
from agents.envs.customer_service.tickets import load_tickets
from agents.envs.scripted import scripted_team
from serving.breaker import make_fallback
from tests.agents.envs.test_roster import REVIEWER, specialists


@pytest.fixture(scope="module")
def tickets():
    return load_tickets("train")[:60]


def test_dealt_swaps_jobs_between_seats_and_keeps_the_ids():
    dealt = DEFAULT_ROSTER.dealt([2, 0, 1])
    assert dealt.ids == DEFAULT_ROSTER.ids and dealt.reviewers == DEFAULT_ROSTER.reviewers
    guide, logistics, mediator = (DEFAULT_ROSTER.by_id[a] for a in DEFAULT_ROSTER.specialists)
    assert dealt.by_id["shopping_guide"].intents == mediator.intents
    assert dealt.by_id["shopping_guide"].prompt == mediator.prompt
    assert (
        dealt.by_id["logistics"].intents == guide.intents
        and dealt.owner("order_tracking") == "dispute_mediator"
    )
    with pytest.raises(ValueError, match="permutation"):
        DEFAULT_ROSTER.dealt([0, 0, 1])


def test_catalogue_actions_span_every_intent_for_specialists_only():
    roster = drawn_roster(DEFAULT_ROSTER, {"deal_roles": True})
    assert roster.catalogue_actions and drawn_roster(DEFAULT_ROSTER, {}) == DEFAULT_ROSTER
    assert all(roster.role_actions[a] == CATALOGUE_ACTIONS for a in roster.specialists)
    assert roster.role_actions["quality_supervisor"] == DEFAULT_ROSTER.role_actions["quality_supervisor"]
    assert roster.with_prompts({}).catalogue_actions and roster.dealt([1, 2, 0]).catalogue_actions


@pytest.mark.parametrize("n", [2, 4])
def test_drawn_teams_deal_their_jobs_on_drawn_tickets_only(n, tickets):
    team = Roster.from_agents([*specialists(n), REVIEWER])
    env = CustomerServiceEnv(tickets, team=team, deal_roles=True)
    parallel_api_test(env, num_cycles=40)
    deals = Counter()
    for seed in range(40):
        _, infos = env.reset(seed=seed)
        seat = team.specialists[0]
        deals[env.roster.by_id[seat].intents] += 1
        assert infos[seat]["owners"] == {i: list(o) for i, o in env.roster.owners.items()}
        observations, _ = env.reset(seed=seed)  # each agent is told the job it was dealt
        assert all(observations[a]["prompt"] == env.roster.prompt(a) for a in env.roster.specialists)
    assert len(deals) == n  # the first seat was dealt every job
    env.reset(options={"ticket_index": 3})  # a chosen ticket (evaluation, serving): the team as drawn
    assert env.roster.owners == team.owners and env.action_names(team.specialists[0]) == CATALOGUE_ACTIONS


def test_the_expert_follows_each_deal(tickets):
    env = CustomerServiceEnv(tickets, team=DEFAULT_ROSTER, deal_roles=True)
    expert = ExpertTeam(tickets, roster=env.roster)
    solved = []
    for seed in range(30):
        observations, infos = env.reset(seed=seed)
        while env.agents:
            owners = next(iter(infos.values()))["owners"]
            actions = {a: expert.act_on_ticket(a, o, env.ticket.id, owners) for a, o in observations.items()}
            observations, _, _, _, infos = env.step(actions)
        solved.append(next(iter(infos.values()))["exact_match"])
    assert all(solved)


def test_rule_teams_index_the_catalogue_actions(tickets):
    params = {"deal_roles": True}
    env = CustomerServiceEnv(tickets, team=DEFAULT_ROSTER, shuffle=False, **params)
    rules = scripted_team("customer_service", params, team=DEFAULT_ROSTER)
    plain = CustomerServiceEnv(tickets, team=DEFAULT_ROSTER, shuffle=False)
    # the rules score the same whether the actions are the owners' or the whole catalogue's
    same = evaluate(plain, scripted_team("customer_service", {}, team=DEFAULT_ROSTER).actions)
    assert evaluate(env, rules.actions)["exact_match"] == same["exact_match"] > 0.5
    fallback = make_fallback(
        {"kind": "keyword_router", "rules": [{"keywords": ["where is"], "route_to": "logistics"}]},
        "customer_service",
        params,
        team=DEFAULT_ROSTER.to_list(),
    )
    observations, _ = env.reset(
        options={"ticket": dataclasses.replace(env.tickets[0], text="where is my parcel?")}
    )
    action, _ = fallback.act("logistics", observations["logistics"])
    assert CATALOGUE_ACTIONS[action] == "track_order"


def test_the_shipped_team_deals_with_its_own_prompts_and_deal_roles_is_a_switch():
    env = CustomerServiceEnv("train", deal_roles=True)
    observations, _ = env.reset(seed=0)
    assert all(observations[a]["prompt"] == env.roster.prompt(a) != "" for a in env.roster.ids)
    errors = CustomerServiceEnv.validate_params({"deal_roles": "yes"})
    assert [e.path for e in errors] == ["$.deal_roles"]
