"""A triage desk that splits a ticket into the role queues: the partial view of ``role_view="triage"``.

Help desks rarely show every specialist the whole conversation. A front-line triage step cuts the
customer's message into requests and files each in the queue of the role its keyword rules name; a request
the rules cannot place lands at the front desk (the shopping guide). The rules are the hand-written
patterns of `rules.KeywordRouter` — what a triage desk writes on day one, untuned — so they misfile some
requests, and the specialist who owns such a request never sees it: a teammate who does must tell them.
That makes each agent's view partial in the way centralised training is meant for (the critic reads the
whole ticket; each actor only its queue).
"""

from __future__ import annotations

import functools

from agents.envs.customer_service.clauses import split_clauses
from agents.envs.customer_service.rules import KeywordRouter, normalise
from agents.envs.customer_service.tickets import INTENT_ROLE, ROLES, Ticket

ROLE_VIEWS = ("ticket", "triage")
"""What the specialists observe: the whole ticket (default) or their triage queue."""

FRONT_DESK = "shopping_guide"
"""The queue of requests the triage rules cannot place."""

EMPTY_QUEUE = "(nothing was routed to this queue)"
"""A role's ``ticket`` observation when the triage filed none of the ticket's requests with it."""

QUEUE_SEPARATOR = " | "
"""Joins a queue's requests; `split_clauses` cuts at "|", so a reader sees the same clauses again."""


@functools.cache
def _triage_rules() -> KeywordRouter:
    return KeywordRouter()


def queues_for(clause: str) -> set[str]:
    """The roles whose queue one request goes to: every role whose intent the hand rules find in it,
    else the front desk."""
    roles = {INTENT_ROLE[intent] for intent in _triage_rules().hand_matches(normalise(clause))}
    return roles or {FRONT_DESK}


@functools.lru_cache(maxsize=8192)
def triage(text: str) -> dict[str, str]:
    """``text`` split into one text per role (`ROLES`): the requests filed in its queue, in ticket order."""
    filed: dict[str, list[str]] = {role: [] for role in ROLES}
    for clause in split_clauses(text):
        for role in queues_for(clause):
            filed[role].append(clause)
    return {role: QUEUE_SEPARATOR.join(clauses) or EMPTY_QUEUE for role, clauses in filed.items()}


@functools.lru_cache(maxsize=8192)
def triage_team(text: str, owners: tuple[tuple[str, str], ...], front_desk: str) -> dict[str, str]:
    """`triage` for a drawn team: ``owners`` pairs each intent with the agent whose queue takes it, and
    ``front_desk`` gets the requests the rules cannot place."""
    owner = dict(owners)
    filed: dict[str, list[str]] = {agent: [] for agent in dict.fromkeys((*owner.values(), front_desk))}
    for clause in split_clauses(text):
        found = _triage_rules().hand_matches(normalise(clause))
        for agent in dict.fromkeys(owner[intent] for intent in found if intent in owner) or [front_desk]:
            filed[agent].append(clause)
    return {agent: QUEUE_SEPARATOR.join(clauses) or EMPTY_QUEUE for agent, clauses in filed.items()}


def misfiled(ticket: Ticket) -> tuple[str, ...]:
    """The ticket's intents whose owner the triage filed nothing with: only a teammate can tell them."""
    queues = triage(ticket.text)
    return tuple(intent for intent in ticket.intents if queues[INTENT_ROLE[intent]] == EMPTY_QUEUE)
