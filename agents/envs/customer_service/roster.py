"""The customer-service team as data: which agents there are, what each is responsible for, what it is told.

A team (the spec's agents, `Roster.from_agents`) holds *specialists* — any number ≥ 1, each owning a set of
intents from the catalogue (`catalogue.Catalogue`: by default the shipped `INTENTS`, described in
`INTENT_DESCRIPTIONS`; a spec may declare its own, ``environment.params.intents``) — and one or more *reviewers*
(role ``quality_supervisor`` or ``reviewer``) that approve or send back the draft answer. A specialist's
actions are ``pass`` plus one answer per intent it owns (catalogue order); a reviewer's are ``continue``,
``approve``, ``send_back``. Every intent must have an owner; two specialists may share one (a second
mediator). An agent that names no intents and has one of the shipped specialist roles owns that role's
intents (`DEFAULT_INTENTS`), so specs written before intents were an agent field keep their meaning.

`roster_problems` says, in words, what a drawn team lacks ("nobody owns the intents return_refund,
damaged_item: give them to an agent"); `DEFAULT_ROSTER` is the shipped four-agent team.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agents.envs.customer_service.catalogue import SHIPPED, SHIPPED_DESCRIPTIONS, Catalogue, make_catalogue
from agents.envs.customer_service.tickets import INTENT_ROLE, INTENTS, ROLES, SUPERVISOR

INTENT_DESCRIPTIONS: dict[str, str] = SHIPPED_DESCRIPTIONS
"""What each intent of the shipped catalogue means (the designer shows it next to the intent's checkbox)."""

REVIEWER_ROLES: tuple[str, ...] = (SUPERVISOR, "reviewer")
"""Roles that review the draft answer instead of answering."""

SPECIALIST_ROLES: tuple[str, ...] = (*ROLES, "custom")
"""Roles that answer intents."""

REVIEW_ACTIONS: tuple[str, ...] = ("continue", "approve", "send_back")

DEFAULT_INTENTS: dict[str, tuple[str, ...]] = {
    role: tuple(i for i in INTENTS if INTENT_ROLE[i] == role) for role in ROLES
}
"""The intents a shipped specialist role owns when its agent names none."""


@dataclass(frozen=True)
class Member:
    """One agent of the team: its id, role, what it owns (empty for a reviewer), its prompt, and the
    catalogue its intents come from."""

    id: str
    role: str
    intents: tuple[str, ...] = ()
    prompt: str = ""
    catalogue: Catalogue = SHIPPED

    @property
    def reviewer(self) -> bool:
        """Whether this agent reviews the draft (else it answers its intents)."""
        return self.role in REVIEWER_ROLES

    @property
    def actions(self) -> tuple[str, ...]:
        """The names of this agent's actions; the action index is the position here."""
        if self.reviewer:
            return REVIEW_ACTIONS
        return ("pass", *(i.action for i in self.catalogue.intents if i.name in self.intents))

    def to_dict(self) -> dict:
        """JSON form (what a checkpoint records)."""
        return {"id": self.id, "role": self.role, "intents": list(self.intents), "prompt": self.prompt}


class RosterError(ValueError):
    """A team that cannot play customer service; the message says what to change."""


def _field(agent: object, key: str, default: object = None) -> object:
    if isinstance(agent, Mapping):
        return agent.get(key, default)
    return getattr(agent, key, default)


def _member(agent: object, catalogue: Catalogue = SHIPPED) -> Member:
    role = str(_field(agent, "role", ""))
    given = _intents_given(agent)
    intents = () if role in REVIEWER_ROLES else tuple(given) or DEFAULT_INTENTS.get(role, ())
    ordered = catalogue.order(intents)
    return Member(
        str(_field(agent, "id", "")), role, ordered, str(_field(agent, "prompt", "") or ""), catalogue
    )


def _intents_given(agent: object) -> tuple:
    """The intents an agent names; () for anything but a list (the spec's validator reports its type)."""
    given = _field(agent, "intents")
    return tuple(given) if isinstance(given, (list, tuple)) else ()


def roster_problems(agents: Sequence[object], catalogue: Catalogue = SHIPPED) -> list[tuple[str, str]]:
    """Every problem of a drawn team as (JSON path, message), paths rooted at the spec (``$.agents[i]``);
    [] for a team that can play ``catalogue``. ``agents`` are spec agents or mappings with id, role,
    intents, prompt."""
    names = catalogue.names
    problems: list[tuple[str, str]] = []
    members = []
    for i, agent in enumerate(agents):
        path = f"$.agents[{i}]"
        role = str(_field(agent, "role", ""))
        given = _intents_given(agent)
        unknown = [str(name) for name in given if name not in names]
        if unknown:
            problems.append(
                (
                    f"{path}.intents",
                    f"unknown intents {', '.join(unknown)}; the catalogue has {', '.join(names)}",
                )
            )
        if role in REVIEWER_ROLES:
            if given:
                problems.append(
                    (f"{path}.intents", f"a {role} reviews the draft and owns no intents: clear them")
                )
        elif role not in SPECIALIST_ROLES and not given:  # any role that names intents answers them
            problems.append(
                (
                    f"{path}.role",
                    f"a {role} has no part in customer service: make it a specialist ({', '.join(SPECIALIST_ROLES)}) "
                    f"or a reviewer ({', '.join(REVIEWER_ROLES)})",
                )
            )
        elif not given and not catalogue.order(DEFAULT_INTENTS.get(role, ())):
            problems.append(
                (
                    f"{path}.intents",
                    f"agent {_field(agent, 'id')} owns no intents: tick the intents it handles",
                )
            )
        members.append(_member(agent, catalogue))
    specialists = [m for m in members if not m.reviewer and (m.role in SPECIALIST_ROLES or m.intents)]
    if not specialists:
        problems.append(
            ("$.agents", "the team has no specialist to answer the customer: add an agent that owns intents")
        )
    if not any(m.reviewer for m in members):
        problems.append(
            (
                "$.agents",
                "nobody reviews the draft answer: add a quality_supervisor to approve or send it back",
            )
        )
    owned = {i for m in specialists for i in m.intents}
    orphans = [i for i in names if i not in owned]
    if specialists and orphans:
        noun = "intent" if len(orphans) == 1 else "intents"
        problems.append(
            (
                "$.agents",
                f"nobody owns the {noun} {', '.join(orphans)}: give {'it' if len(orphans) == 1 else 'them'} to an agent",
            )
        )
    return problems


CATALOGUE_ACTIONS: tuple[str, ...] = ("pass", *(SHIPPED.actions[i] for i in INTENTS))
"""A specialist's actions when every specialist of the shipped catalogue may answer any intent
(`Roster(catalogue_actions=True)`; another catalogue's are ``pass`` plus each of its intents' actions)."""


class Roster:
    """A valid customer-service team, in the spec's agent order.

    With ``catalogue_actions`` every specialist's actions are `CATALOGUE_ACTIONS` (it may answer any intent;
    what it owns is what it is taught to answer), so the same policy can take another job by reading another
    prompt (`dealt`).
    """

    def __init__(self, members: Sequence[Member], catalogue_actions: bool = False):
        self.members = tuple(members)
        self.catalogue = self.members[0].catalogue if self.members else SHIPPED
        self.catalogue_actions = bool(catalogue_actions)
        self.by_id = {m.id: m for m in self.members}
        self.ids = [m.id for m in self.members]
        self.specialists = [m.id for m in self.members if not m.reviewer]
        self.reviewers = [m.id for m in self.members if m.reviewer]
        self.owners: dict[str, tuple[str, ...]] = {
            intent: tuple(m.id for m in self.members if intent in m.intents)
            for intent in self.catalogue.names
        }
        every = ("pass", *(i.action for i in self.catalogue.intents))
        self.role_actions: dict[str, tuple[str, ...]] = {
            m.id: every if self.catalogue_actions and not m.reviewer else m.actions for m in self.members
        }

    @classmethod
    def from_agents(cls, agents: Sequence[object], catalogue: Catalogue = SHIPPED) -> Roster:
        """The team of the spec's ``agents`` (objects or mappings) answering ``catalogue``; RosterError
        naming every problem."""
        problems = roster_problems(agents, catalogue)
        if problems:
            raise RosterError("; ".join(f"{path}: {message}" for path, message in problems))
        return cls([_member(agent, catalogue) for agent in agents])

    def owner(self, intent: str) -> str:
        """The agent that answers ``intent`` (the first of its owners in team order)."""
        return self.owners[intent][0]

    def prompt(self, agent: str) -> str:
        """What ``agent`` is told it does."""
        return self.by_id[agent].prompt

    def with_prompts(self, prompts: Mapping[str, str]) -> Roster:
        """The same team with some agents told something else (a prompt swap, a rewrite)."""
        members = [
            Member(m.id, m.role, m.intents, prompts.get(m.id, m.prompt), m.catalogue) for m in self.members
        ]
        return Roster(members, self.catalogue_actions)

    def dealt(self, order: Sequence[int]) -> Roster:
        """The team with its specialists' jobs dealt to other seats: the k-th specialist takes the intents and
        the prompt of specialist ``order[k]`` and keeps its id (reviewers stay as they are)."""
        if sorted(order) != list(range(len(self.specialists))):
            raise ValueError(
                f"order must be a permutation of 0..{len(self.specialists) - 1}, got {list(order)}"
            )
        jobs = [self.by_id[self.specialists[k]] for k in order]
        seat = {agent: k for k, agent in enumerate(self.specialists)}
        members = [
            m
            if m.reviewer
            else Member(m.id, m.role, jobs[seat[m.id]].intents, jobs[seat[m.id]].prompt, m.catalogue)
            for m in self.members
        ]
        return Roster(members, self.catalogue_actions)

    def to_list(self) -> list[dict]:
        """JSON form, in team order."""
        return [m.to_dict() for m in self.members]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Roster)
            and self.members == other.members
            and self.catalogue_actions == other.catalogue_actions
        )

    def __hash__(self) -> int:
        return hash((self.members, self.catalogue_actions))


def drawn_roster(
    team: Sequence[object] | Roster | None, params: Mapping[str, object] | None = None
) -> Roster | None:
    """The roster `CustomerServiceEnv` plays for ``team`` (spec agents or a Roster; None = the shipped team)
    with environment ``params`` (its catalogue, ``intents``): under ``deal_roles`` every specialist's actions
    span the catalogue, so rule teams built on it (fallback, teacher) index the same actions as the env."""
    if team is None:
        return None
    catalogue = make_catalogue((params or {}).get("intents"))
    roster = team if isinstance(team, Roster) else Roster.from_agents(team, catalogue)
    spans = roster.catalogue_actions or bool((params or {}).get("deal_roles"))
    return roster if spans == roster.catalogue_actions else Roster(roster.members, spans)


DEFAULT_PROMPTS: dict[str, str] = {
    "shopping_guide": "You are the shopping guide: answer product questions and recommend products.",
    "logistics": "You are the logistics agent: track orders, explain delivery delays, change addresses.",
    "dispute_mediator": "You are the dispute mediator: handle returns and refunds, damaged items and complaints.",
    SUPERVISOR: "You are the quality supervisor: approve the draft answer when it is complete, else send it back.",
}

DEFAULT_ROSTER = Roster(
    [
        Member(role, role, DEFAULT_INTENTS.get(role, ()), DEFAULT_PROMPTS[role])
        for role in (*ROLES, SUPERVISOR)
    ]
)
"""The shipped team: shopping guide, logistics, dispute mediator, quality supervisor."""
