"""The customer-service environment's parameters, declared once (`CustomerServiceParams`: the spec's
``environment.params``, from which defaults, checks and the designer's form are derived), and how a team
trained on them reads tickets and starts (``reader``, the warm start)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from agents import places
from agents.envs.customer_service.catalogue import Catalogue, catalogue_problems, make_catalogue
from agents.envs.customer_service.tickets import (
    HOLDOUT_STYLES,
    SPLITS,
    SUPERVISOR_VIEWS,
    TICKET_FILES,
    TicketFileError,
    UnknownIntentError,
    load_tickets,
    resolve_ticket_path,
    unknown_intents,
)
from agents.envs.customer_service.triage import ROLE_VIEWS
from agents.envs.params import EnvParams, param
from agents.errors import SpecError

READERS = ("whole", "clause", "clause_keywords")
"""How a trained team's actors read a ticket (the ``reader`` parameter): one embedding per text, or per-clause
readers fitted on the training tickets' intents ("_keywords": that also see the keyword patterns' verdicts)."""
CLAUSE_READERS = READERS[1:]
ACTOR_EVIDENCE = ("reader", "reader_plain", "reader_plain_answers")
"""What a clause-reading team's actors act on (the ``actor_evidence`` parameter): the clause readers' scores,
or those averaged with a plain one-vs-rest logistic regression on the whole ticket's sentence vector, the
actors then warm-started from a team that answers what that evidence says ("_answers": the actors see only
which intents it answers, 1 or 0; `training.evidence`, decision 0030)."""


def _cost(default: float, help: str) -> Any:
    return param(default, help, low=0.0, high=100.0)


@dataclass(frozen=True)
class CustomerServiceParams(EnvParams):
    """The environment's parameters (the spec's ``environment.params``), each declared once."""

    tickets: str = param(
        "train",
        "A split (train, validation, test, holdout_styles), another shipped ticket file (handwritten) or "
        "a dataset by name in the server's ticket directory: NAME.jsonl, with NAME.validation.jsonl as its "
        "dev split when there is one (on your own machine, a path too).",
        data=TICKET_FILES,
    )
    intents: list = param(
        [],
        "The intent catalogue: [{name, description, keywords}], each intent given to a specialist "
        "(agents[].intents); empty = the shipped eight. A shipped intent may be named alone.",
        kind="list",
        checked=False,
    )
    min_rows_per_intent: int = param(
        0,
        "Oversample rare intents in training: every intent with fewer training tickets than this has them "
        "repeated up to it (whole copies, then a seeded remainder). Dev, test and out-of-scope files are "
        "never oversampled. 0 = off; 100 lifted a new intent with 20 labels among 2,400 tickets.",
        low=0,
        high=100_000,
    )
    augment_styles: int = param(
        0,
        "Style copies of every training ticket: each is also played rewritten in another register (a casual "
        "note in lower case with a typo, or a formal letter; generic transforms that keep its meaning). Dev, "
        "test and out-of-scope files are never restyled. 0 = off.",
        low=0,
        high=10,
    )
    max_steps: int = param(6, "Steps the team gets per ticket before it times out.", low=2, high=100)
    correct_reward: float = _cost(1.0, "Team reward for each of the ticket's intents answered.")
    wrong_penalty: float = _cost(0.5, "Team penalty for each answer to an intent the ticket does not have.")
    duplicate_penalty: float = _cost(0.1, "Penalty for answering an intent that is already in the draft.")
    step_cost: float = _cost(0.05, "Cost of every step: rewards quick resolutions.")
    message_cost: float = _cost(0.02, "Cost of every message to the customer.")
    approve_bonus: float = _cost(1.0, "Bonus when the supervisor approves exactly the right answer.")
    bad_approve_penalty: float = _cost(
        1.0, "Penalty when the supervisor approves an incomplete or wrong answer."
    )
    timeout_penalty: float = _cost(1.0, "Penalty when the steps run out without an approved answer.")
    shuffle: bool = param(True, "Draw tickets at random (off: in file order).")
    supervisor_view: str = param(
        "ticket",
        "What the quality supervisor sees: the customer's ticket, or only the draft answer.",
        choices=SUPERVISOR_VIEWS,
    )
    role_view: str = param(
        "ticket",
        "What the three specialists see: the whole ticket, or only the requests a keyword triage "
        "desk files in their queue (misfiled ones must be passed on by a teammate).",
        choices=ROLE_VIEWS,
    )
    mask_invalid: bool = param(
        False,
        "Hide actions that make no sense now (approving an empty draft, repeating an answer); "
        "lets a team learn from scratch.",
    )
    privileged_state: bool = param(
        True, "Let the centralised critic see the true intents (training time only)."
    )
    delayed_reward: bool = param(
        False,
        "Pay the whole team reward at the end of the ticket, as a customer's verdict would, "
        "instead of step by step.",
    )
    deal_roles: bool = param(
        False,
        "Train agents that read their prompts: every specialist may answer any intent, and each "
        "training ticket deals the specialists' jobs (intents and prompt) to random seats, so an agent does "
        "what its prompt says (swap two prompts and they swap their work) instead of what its seat did.",
    )
    # How a trained team starts (read by the trainers, not by the environment): both need labelled tickets.
    reader: str = param(
        "whole",
        '"whole" (one embedding per text), "clause" (per-clause readers on the intents) or '
        '"clause_keywords" (per-clause readers that also see the keyword patterns\' verdicts)',
        choices=READERS,
    )
    reader_epochs: int = param(
        300, "supervised clause-reader epochs on the training tickets' intents", low=0, high=100_000
    )
    reader_whole: bool = param(
        False,
        "Clause readers also read the whole ticket's sentence vector (a linear head beside the clauses'). "
        "Experimental: it did not lift a team on hand-written tickets (docs/experiments/"
        "2026-12-05-generalisation.md).",
    )
    actor_evidence: str = param(
        "reader",
        '"reader": the actors act on their clause readers\' scores; "reader_plain": on those averaged with '
        "a plain logistic regression on the whole ticket's sentence vector (fitted in the warm start), and "
        "the warm start clones a team that answers every intent that evidence puts above one half; "
        '"reader_plain_answers": the actors see only which intents that evidence answers (1 or 0) '
        "(docs/experiments/2026-12-05-generalisation.md)",
        choices=ACTOR_EVIDENCE,
    )
    warm_start_episodes: int = param(
        0, "episodes of the labelled rule team logged and cloned before PPO; 0 = off", low=0, high=1_000_000
    )
    warm_start_epochs: int = param(8, "behaviour-cloning epochs over those episodes", low=0, high=10_000)

    @classmethod
    def related_problems(cls, merged: Mapping[str, Any], bad: set[str]) -> list[SpecError]:
        """The catalogue must be well formed, the ticket file must exist (a split name or a JSONL file) and
        hold only the catalogue's intents, as must a dataset's dev and test files (the shipped catalogue when
        the spec declares none; a path, on one's own machine, is read only under a catalogue of the spec's
        own); triage queues follow the shipped rules."""
        problems = [SpecError(path, message) for path, message in catalogue_problems(merged["intents"])]
        tickets = merged["tickets"]
        if not isinstance(tickets, str | Path) or not str(tickets).strip():
            splits = ", ".join((*SPLITS, HOLDOUT_STYLES))
            return [
                *problems,
                SpecError("$.tickets", f"must be a split name ({splits}) or a JSONL file path"),
            ]
        if not resolve_ticket_path(str(tickets)).is_file():
            shown = places.shown(resolve_ticket_path(tickets))
            return [*problems, SpecError("$.tickets", f"ticket file not found: {shown}")]
        if problems:
            return problems
        if merged["intents"] and merged["role_view"] == "triage":
            problems.append(
                SpecError("$.role_view", "triage queues follow the shipped intents' rules: use ticket")
            )
        catalogue = make_catalogue(merged["intents"])
        named = places.named_path(str(tickets), TICKET_FILES)
        if named is None and merged["intents"]:  # a path (one's own machine): read for its own catalogue
            named = resolve_ticket_path(tickets)
        for path in (*((named,) if named is not None else ()), *_held_out_files(str(tickets))):
            stat = path.stat()
            problem = _file_problem(path, (stat.st_mtime_ns, stat.st_size), catalogue)
            if problem is not None:
                problems.append(SpecError("$.tickets", problem))
        return problems


def _held_out_files(tickets: str) -> tuple[Path, ...]:
    """The dev and test files a dataset's name comes with (``NAME.validation``, ``NAME.test``): a run reads
    them in the same catalogue."""
    found = (places.named_path(f"{tickets}{suffix}", TICKET_FILES) for suffix in (".validation", ".test"))
    return tuple(path for path in found if path is not None)


@lru_cache(maxsize=64)
def _file_problem(path: Path, stamp: tuple[int, int], catalogue: Catalogue) -> str | None:
    """What makes the ticket file at ``path`` unusable in ``catalogue`` (None: nothing); ``stamp`` (its
    modification time and size) keeps the answer only while the file is unchanged."""
    try:
        load_tickets(path, catalogue)
    except UnknownIntentError:
        found = unknown_intents(path, catalogue)
        listed = ", ".join(f"{name} ({count} row{'s' * (count != 1)})" for name, count in found.items())
        which = "the shipped" if catalogue.shipped else "the spec's"
        return (
            f"{places.shown(path)}: rows carry intents {which} catalogue lacks ({', '.join(catalogue.names)}): "
            f"{listed}. Declare each in intents ([{{name, description}}]; an empty list means the shipped "
            "catalogue) and give it to a specialist (agents[].intents), or remove those rows"
        )
    except TicketFileError as exc:
        return str(exc)
    return None


DEFAULTS: dict[str, Any] = CustomerServiceParams.defaults()
"""Environment parameters (the spec's ``environment.params``) and their defaults."""
PARAMETERS = CustomerServiceParams.describe()
"""The parameters as the designer's Environment tab shows them."""


def team_start(environment: Any) -> CustomerServiceParams:
    """How a team trained in a spec's ``environment`` (its ``name`` and ``params``) reads tickets and starts
    (``reader``, ``warm_start_episodes``…): its parameters under customer_service, else the defaults (one
    embedding per text, no warm start), since only customer-service tickets carry the labels they need."""
    if environment.name != "customer_service":
        return CustomerServiceParams()
    return CustomerServiceParams(**dict(environment.params))
