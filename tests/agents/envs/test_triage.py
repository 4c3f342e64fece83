"""The triage desk behind ``role_view="triage"``: each specialist sees only the requests filed with it."""

from __future__ import annotations

import pytest
from pettingzoo.test import parallel_api_test

from agents.envs.customer_service.clauses import split_clauses
from agents.envs.customer_service.env import AGENTS, CustomerServiceEnv, evaluate
from agents.envs.customer_service.rules import KeywordRouter, ScriptedTeam
from agents.envs.customer_service.tickets import ROLES, SUPERVISOR, Ticket, load_tickets
from agents.envs.customer_service.triage import EMPTY_QUEUE, FRONT_DESK, queues_for, triage


def test_requests_go_to_the_queues_their_keywords_name_and_the_rest_to_the_front_desk():
    queues = triage("where is my parcel? the mug arrived cracked | hi there")
    assert queues["logistics"] == "where is my parcel?"
    assert queues["dispute_mediator"] == "the mug arrived cracked"
    assert queues[FRONT_DESK] == "hi there"  # no rule places a greeting
    assert queues_for("hello") == {FRONT_DESK}
    assert triage("where is my parcel?")[FRONT_DESK] == EMPTY_QUEUE


def test_every_request_is_filed_somewhere_and_nothing_else_is_added():
    for ticket in load_tickets("validation")[:200]:
        queues = [q for q in triage(ticket.text).values() if q != EMPTY_QUEUE]
        assert all(any(clause in queue for queue in queues) for clause in split_clauses(ticket.text))
        filed = {clause for queue in queues for clause in split_clauses(queue)}
        assert all(clause in ticket.text for clause in filed)  # a reader sees the ticket's own words


def test_triage_view_shows_each_specialist_its_queue_and_the_supervisor_and_critic_the_ticket():
    env = CustomerServiceEnv("validation", role_view="triage", mask_invalid=True)
    parallel_api_test(env, num_cycles=20)
    ticket = Ticket(
        "t", "i was promised it by the 14th. the lamp arrived cracked", ("delivery_delay", "damaged_item")
    )
    observations, _ = env.reset(seed=0, options={"ticket": ticket})
    assert observations["logistics"]["ticket"] == EMPTY_QUEUE  # the delay was misfiled at the front desk
    assert observations[FRONT_DESK]["ticket"] == "i was promised it by the 14th."
    assert observations["dispute_mediator"]["ticket"] == "the lamp arrived cracked"
    assert observations[SUPERVISOR]["ticket"] == ticket.text and env.state()["ticket"] == ticket.text
    assert all(env.observation_space(a).contains(observations[a]) for a in AGENTS)
    error = CustomerServiceEnv.validate_params({"role_view": "everything"})[0]
    assert error.path == "$.role_view" and "ticket, triage" in error.message


def test_misfiled_requests_cost_the_rule_team_what_it_cannot_pass_on():
    tickets = load_tickets("validation")[:200]
    router = KeywordRouter.tuned()
    whole = evaluate(CustomerServiceEnv(tickets), ScriptedTeam(router).actions)
    filed = evaluate(
        CustomerServiceEnv(tickets, role_view="triage"), ScriptedTeam(router, queues=True).actions
    )
    naive = evaluate(CustomerServiceEnv(tickets, role_view="triage"), ScriptedTeam(router).actions)
    assert filed["exact_match"] < whole["exact_match"] - 0.05  # no rule role hears of a misfiled request
    # without `queues` the front desk answers the fallback intent for every greeting filed with it
    assert naive["exact_match"] < filed["exact_match"] - 0.1
    assert naive["wasted_messages_per_ticket"] > filed["wasted_messages_per_ticket"]


@pytest.mark.parametrize("role", ROLES)
def test_no_fallback_for_a_queue_with_no_request(role):
    team = ScriptedTeam(KeywordRouter.tuned(), queues=True)
    observation = {"ticket": EMPTY_QUEUE, "draft": [0] * 8, "status": "", "step": 0}
    assert team.act(role, observation) == 0  # pass


def test_rule_fallbacks_and_teachers_know_their_roles_read_queues():
    from agents.envs.scripted import scripted_team

    assert scripted_team("customer_service", {"role_view": "triage"}).queues
    assert not scripted_team("customer_service", {}).queues and not scripted_team("customer_service").queues
