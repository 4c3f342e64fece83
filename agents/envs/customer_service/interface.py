"""The customer-service environment's routing interface (`agents.envs.routing`): everything training,
serving and the web need of a routing team — how it reads and starts, its labelled rule team, which
actions are right, its rule fallback, its tickets and its reply templates — for whichever intent catalogue
the spec declares (``environment.params.intents``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agents import places
from agents.envs.customer_service.catalogue import SHIPPED, Catalogue, make_catalogue
from agents.envs.customer_service.fallback import KeywordRoutedTeam
from agents.envs.customer_service.params import CLAUSE_READERS, CustomerServiceParams
from agents.envs.customer_service.replies import reply
from agents.envs.customer_service.roster import DEFAULT_INTENTS, REVIEWER_ROLES, Roster, drawn_roster
from agents.envs.customer_service.rules import (
    ExpertTeam,
    KeywordRouter,
    ScriptedTeam,
    catalogue_patterns,
    keyword_evidence,
)
from agents.envs.customer_service.rules import clauses as rule_clauses
from agents.envs.customer_service.rules import rules_router as _rules_router
from agents.envs.customer_service.tickets import TICKET_FILES, Ticket, TicketFileError, _ticket
from agents.envs.customer_service.tickets import load_tickets as _load_tickets

__all__ = [
    "clause_readers", "catalogue", "start", "reader_inputs", "expert_team", "correct_actions",
    "keyword_fallback", "rules_router", "make_ticket", "load_tickets", "ticket_problem", "reply", "dev_tickets",
    "test_tickets", "has_own_dev_split", "scripted_team", "role_intents", "answered_intent", "reviewer_roles",
    "out_of_scope_tickets",
]  # fmt: skip

clause_readers = CLAUSE_READERS
DEV_SPLIT = "validation"
TEST_SPLIT = "test"
reviewer_roles = REVIEWER_ROLES


def catalogue(params: Mapping[str, Any] | None) -> Catalogue:
    """The intent catalogue ``params`` declare (the shipped one by default)."""
    return make_catalogue((params or {}).get("intents"))


def start(params: Mapping[str, Any]) -> CustomerServiceParams:
    """The environment's parameters, read for ``reader``, ``reader_epochs`` and the warm start."""
    return CustomerServiceParams(**dict(params))


def reader_inputs(
    params: Mapping[str, Any] | None, keywords: bool = False
) -> tuple[tuple[str, ...], Callable[[str], list[float]] | None]:
    """The intents' descriptions (an agent's prompt enters as its similarity to each) and, with
    ``keywords``, the keyword rules' verdict per intent of one clause: the hand-written patterns for the
    shipped catalogue, else each intent's declared keywords and description words (`catalogue_patterns`)."""
    chosen = catalogue(params)
    anchors = tuple(chosen.descriptions.values())
    if not keywords:
        return anchors, None
    if chosen.shipped:
        return anchors, keyword_evidence
    router = KeywordRouter(patterns=catalogue_patterns(chosen), order=chosen.names)

    def evidence(clause: str) -> list[float]:
        found = set().union(*(router.hand_matches(part) for part in rule_clauses(clause)))
        return [1.0 if name in found else 0.0 for name in chosen.names]

    return anchors, evidence


def scripted_team(
    params: Mapping[str, Any] | None, team: Sequence[Any] | None, router: Any | None = None
) -> ScriptedTeam:
    """The rule-scripted team (pre-training partner, the ``scripted`` fallback): the tuned rule router over
    the drawn roster; a catalogue of one's own gets rules built from it (`rules.rules_router`). ``router``
    (anything with ``predict(text, fallback)``) reads the tickets instead of the rules: the same team and
    procedure with another reader (the plain-classifier baseline)."""
    roster = drawn_roster(team, params)
    if router is None and roster is not None and not roster.catalogue.shipped:
        router = _rules_router(params)
    return ScriptedTeam(router, queues=(params or {}).get("role_view") == "triage", roster=roster)


def expert_team(tickets: Sequence[Ticket], roster: Roster | None) -> ExpertTeam:
    """The scripted team reading the labels of ``tickets`` (privileged: warm-start logs, the teacher)."""
    return ExpertTeam(tickets, roster=roster)


def correct_actions(
    names: Sequence[str],
    observation: Mapping[str, Any],
    truth: set[str],
    owned: Sequence[str] | None = None,
    intents: Catalogue = SHIPPED,
) -> set[int]:
    """The right actions of one agent (its action ``names``) at ``observation`` for a ticket whose true
    intents are ``truth``: a specialist answers a true intent it owns not yet in the draft, else passes; a
    reviewer sends back a draft holding a wrong intent, approves a complete one, else waits. What it owns
    is ``owned`` or, without it, the intents its actions can answer."""
    action_intent = intents.action_intents
    drafted = {intents.names[i] for i, flag in enumerate(observation["draft"]) if flag}
    if "approve" in names:
        wanted = "send_back" if drafted - truth else "approve" if truth <= drafted else "continue"
        return {list(names).index(wanted)}
    todo = {
        i
        for i, name in enumerate(names)
        if name in action_intent
        and action_intent[name] in truth
        and action_intent[name] not in drafted
        and (owned is None or action_intent[name] in owned)
    }
    return todo or {list(names).index("pass")}


def rules_router(params: Mapping[str, Any] | None = None) -> KeywordRouter:
    """The tuned rule router of ``params``' catalogue (`rules.rules_router`)."""
    return _rules_router(params)


def keyword_fallback(
    rules: Sequence[Any], params: Mapping[str, Any] | None, team: Sequence[Any] | None
) -> KeywordRoutedTeam:
    """The spec's keyword rules over the drawn team (`fallback.KeywordRoutedTeam`)."""
    roster = drawn_roster(team, params)
    chosen = catalogue(params)
    key = "shipped" if chosen.shipped else (chosen, str((params or {}).get("tickets", "train")))
    return KeywordRoutedTeam(rules, lambda: _rules_router(params), roster=roster, key=key)


def make_ticket(ticket_id: str, text: str, intents: Sequence[str] = ()) -> Ticket:
    """A ticket the runtime plays (a typed text: no intents, reward unknown)."""
    return Ticket(id=ticket_id, text=text, intents=tuple(intents))


def load_tickets(name: str, params: Mapping[str, Any] | None = None) -> list[Ticket]:
    """The tickets of a ticket file or dataset ``name`` (a path on one's own machine), in ``params``'
    catalogue; `TicketFileError` (a ValueError) naming the line of a bad row."""
    return _load_tickets(name, catalogue(params))


def _split_of(params: Mapping[str, Any] | None, suffix: str, shipped: str) -> str | None:
    """A held-out split of the tickets ``params`` name: a dataset NAME's ``NAME<suffix>`` when there is one;
    the shipped ``shipped`` split for the shipped catalogue (also when it trains on another file, as before
    datasets); None for a catalogue of one's own without one."""
    params = params or {}
    own = f"{params.get('tickets', 'train')}{suffix}"
    if places.is_name(own) and places.named_path(own, TICKET_FILES) is not None:
        return own
    return shipped if catalogue(params).shipped else None


def dev_tickets(params: Mapping[str, Any] | None) -> str | None:
    """The dev split of the tickets ``params`` name (selection of `best`, calibration): ``NAME.validation``,
    else the shipped validation split for the shipped catalogue (`_split_of`)."""
    return _split_of(params, ".validation", DEV_SPLIT)


def test_tickets(params: Mapping[str, Any] | None) -> str | None:
    """The test split of the tickets ``params`` name (a run's verdict beside its baselines): ``NAME.test``
    of a dataset, else the shipped test split for the shipped catalogue (`_split_of`); None: no test split."""
    return _split_of(params, ".test", TEST_SPLIT)


def has_own_dev_split(params: Mapping[str, Any] | None) -> bool:
    """Whether the tickets ``params`` name come with their own dev split (``NAME.validation``)."""
    return dev_tickets(params) not in (None, DEV_SPLIT)


def role_intents(role: str) -> tuple[str, ...]:
    """The intents a shipped specialist role owns when its agent names none (() for any other role)."""
    return DEFAULT_INTENTS.get(role, ())


def answered_intent(action: str) -> str | None:
    """The intent an action answers: a shipped one's, else ``answer_<intent>`` (None: no answer)."""
    shipped = SHIPPED.action_intents.get(action)
    return shipped or (action[len("answer_") :] or None if action.startswith("answer_") else None)


def ticket_problem(line: str, where: str, params: Mapping[str, Any] | None = None) -> str | None:
    """What is wrong with one JSONL ticket row (None: a usable row), in ``params``' catalogue."""
    try:
        _ticket(line, where, "row", catalogue(params))
    except TicketFileError as exc:
        return str(exc)
    return None


def out_of_scope_tickets(params: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Labelled out-of-scope tickets (``{"text", "intents": []}``) the scope gate contrasts a ticket with
    (`serving.scope`): a dataset NAME's ``NAME.out_of_scope`` rows when it has them; for the shipped
    catalogue the generated ones (`out_of_scope`, train split); else none (the gate then uses distance to
    the catalogue alone: a shop's out-of-scope requests may be another catalogue's intents)."""
    import json

    from agents.envs.customer_service.tickets import DEFAULT_DATA_DIR

    params = params or {}
    own = f"{params.get('tickets', 'train')}.out_of_scope"
    path = places.named_path(own, TICKET_FILES) if places.is_name(own) else None
    if path is None and catalogue(params).shipped:
        path = DEFAULT_DATA_DIR / "out_of_scope_generated_train.jsonl"
    if path is None or not path.is_file():
        return []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [{"text": str(r["text"]), "intents": []} for r in rows if isinstance(r, dict) and r.get("text")]
