"""Customer-service tickets: the intent catalogue, a synthetic ticket generator and a JSONL loader.

A ticket is one customer message with the set of intents the team must handle::

    {"id": "cs-00017", "text": "it's been 2 weeks and still nothing. oh and I moved", "intents": ["delivery_delay", "address_change"]}

Intents come from exactly eight names (`INTENTS`), each owned by one role (`INTENT_ROLE`), each handled
by one action of that role (`INTENT_ACTION`).

The generator writes realistic, deliberately hard tickets: many phrasings per intent (direct, indirect
and casual template families), typos, informal spelling, negated distractors ("no need to refund, just
tell me where it is"), words used in another sense ("I would not recommend you to anyone" is a
complaint) and about 30 % tickets with two or three intents. Every fourth phrasing of each family is
left out of train, so validation/test measure generalisation to new wording. The `formal_letter` and
`terse` families never appear in train/validation/test; they make up ``holdout_styles.jsonl`` so
results can be checked on styles the team never trained on.

CLI::

    python -m agents.envs.customer_service.tickets --out data/customer_service [--n 3600] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents import places
from agents.envs.customer_service.catalogue import SHIPPED, Catalogue
from agents.envs.customer_service.phrasings import (
    CASUAL_SUBSTITUTIONS,
    CLOSERS,
    COMMON_PAIRS,
    CONNECTORS,
    DISTRACTORS,
    EVAL_ONLY_EVERY,
    FAMILY_WEIGHTS,
    HOLDOUT_CLOSERS,
    HOLDOUT_CONNECTORS,
    HOLDOUT_FAMILIES,
    HOLDOUT_OPENERS,
    INTENT_TEMPLATES,
    KEYBOARD_NEIGHBOURS,
    NEUTRAL_CONTEXT,
    OPENERS,
    SLOTS,
    TRAIN_FAMILIES,
)

INTENTS: tuple[str, ...] = (
    "product_question",
    "recommendation",
    "order_tracking",
    "delivery_delay",
    "address_change",
    "return_refund",
    "damaged_item",
    "complaint",
)
"""Every intent a ticket may carry, in a fixed order (vector index = position here)."""

ROLES: tuple[str, ...] = ("shopping_guide", "logistics", "dispute_mediator")
"""The roles that handle intents; the quality supervisor reviews instead."""

SUPERVISOR = "quality_supervisor"

SUPERVISOR_VIEWS = ("ticket", "draft")
"""What the quality supervisor observes: the whole ticket (default) or only the draft answer and progress."""

HIDDEN_TICKET = "(not shown: the quality supervisor reviews the draft answer only)"
"""The supervisor's ``ticket`` observation under ``supervisor_view="draft"``."""

DIFFICULTY_LEVELS = 4
"""Ticket difficulty levels (`Ticket.difficulty`); the adaptive curriculum's levels for this workflow."""

IDLE_STEP = "nobody acted"
"""The status line's ``last:`` event after a step in which no agent acted."""

INTENT_ROLE: dict[str, str] = {
    "product_question": "shopping_guide",
    "recommendation": "shopping_guide",
    "order_tracking": "logistics",
    "delivery_delay": "logistics",
    "address_change": "logistics",
    "return_refund": "dispute_mediator",
    "damaged_item": "dispute_mediator",
    "complaint": "dispute_mediator",
}
"""Which role owns each intent."""

INTENT_ACTION: dict[str, str] = {
    "product_question": "answer_product_question",
    "recommendation": "recommend_product",
    "order_tracking": "track_order",
    "delivery_delay": "explain_delay",
    "address_change": "change_address",
    "return_refund": "process_refund",
    "damaged_item": "handle_damage",
    "complaint": "resolve_complaint",
}
"""The one action that correctly handles each intent."""

ACTION_INTENT: dict[str, str] = {action: intent for intent, action in INTENT_ACTION.items()}

SPLITS: tuple[str, ...] = ("train", "validation", "test")
HOLDOUT_STYLES = "holdout_styles"
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "customer_service"
TICKET_FILES = places.DataFiles("customer_service", "ticket file")
"""What the ``tickets`` parameter names: a shipped ticket file (the splits, handwritten) or one in the
server's ticket directory (`agents.places`)."""


class TicketFileError(ValueError):
    """A ticket file cannot be used; the message names the file, the line and what to change."""


class UnknownIntentError(TicketFileError):
    """A ticket row carries an intent the catalogue lacks (`unknown_intents` lists them all)."""


@dataclass(frozen=True)
class Ticket:
    """One customer message and the intents the team must handle (in `INTENTS` order)."""

    id: str
    text: str
    intents: tuple[str, ...]

    @property
    def difficulty(self) -> int:
        """0 .. `DIFFICULTY_LEVELS` − 1: one less than the intent count, plus one when a role holds two.

        One intent → 0; two for different roles → 1; two for one role (it must act twice and the
        supervisor must wait for it) or three for different roles → 2; three with a shared role → 3.
        """
        roles = [INTENT_ROLE.get(intent, intent) for intent in self.intents]  # a new intent: its own role
        shared_role = len(set(roles)) < len(roles)
        return min(DIFFICULTY_LEVELS - 1, max(0, len(self.intents) - 1) + int(shared_role))

    def to_json(self) -> str:
        """The ticket as one JSONL line."""
        return json.dumps(
            {"id": self.id, "text": self.text, "intents": list(self.intents)}, ensure_ascii=False
        )


def _sorted_intents(intents: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(set(intents), key=INTENTS.index))


def resolve_ticket_path(split_or_path: str | Path) -> Path:
    """The file behind a split name ("train", "validation", "test", "holdout_styles"), another shipped
    ticket file's name, a ticket file's name in the ticket directory (`agents.places`), or a path."""
    return places.data_path(split_or_path, TICKET_FILES)


def load_tickets(split_or_path: str | Path, catalogue: Catalogue = SHIPPED) -> list[Ticket]:
    """Load tickets from a split name ("train" | "validation" | "test" | "holdout_styles"), a ticket file's
    or dataset's name (`resolve_ticket_path`) or a JSONL path, their intents from ``catalogue``.

    Each line is ``{"text": str, "intents": [intent, ...]}`` with an optional ``"id"`` (without one a
    ticket is named by its file and line); other fields are ignored; blank lines are skipped. Raises
    `TicketFileError` (a ValueError) naming the file and line for: a missing file, bad JSON, missing or
    mistyped fields, an intent the catalogue lacks, an empty intent list, a duplicate id, no tickets.
    """
    path = resolve_ticket_path(split_or_path)
    if not path.is_file():
        hint = f" (split names: {', '.join((*SPLITS, HOLDOUT_STYLES))})" if not path.suffix else ""
        raise TicketFileError(f"ticket file not found: {places.shown(path)}{hint}")
    tickets: list[Ticket] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            ticket = _ticket(line, f"{places.shown(path)}:{number}", f"{path.stem}-{number}", catalogue)
            if ticket.id in seen:
                raise TicketFileError(f"{places.shown(path)}:{number}: duplicate ticket id {ticket.id!r}")
            seen.add(ticket.id)
            tickets.append(ticket)
    if not tickets:
        raise TicketFileError(f"{places.shown(path)}: contains no tickets")
    return tickets


def _ticket(line: str, where: str, default_id: str, catalogue: Catalogue) -> Ticket:
    """One JSONL line as a ticket; `TicketFileError` saying what is wrong at ``where``."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise TicketFileError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(row, dict):
        raise TicketFileError(f'{where}: expected an object {{"text", "intents"}}')
    missing = [key for key in ("text", "intents") if key not in row]
    if missing:
        raise TicketFileError(f"{where}: missing field(s) {', '.join(missing)}")
    ticket_id = row.get("id", default_id)
    if not isinstance(ticket_id, str | int) or isinstance(ticket_id, bool):
        raise TicketFileError(f"{where}: id must be a string")
    if not isinstance(row["text"], str) or not row["text"].strip():
        raise TicketFileError(f"{where}: text must be a non-empty string")
    intents = row["intents"]
    if not isinstance(intents, list) or not intents or not all(isinstance(i, str) for i in intents):
        raise TicketFileError(f"{where}: intents must be a non-empty list of intent names")
    unknown = [name for name in intents if name not in catalogue.names]
    if unknown:
        raise UnknownIntentError(
            f"{where}: unknown intent {unknown[0]!r}; valid intents: {', '.join(catalogue.names)}"
        )
    return Ticket(id=str(ticket_id), text=row["text"], intents=catalogue.order(intents))


def unknown_intents(split_or_path: str | Path, catalogue: Catalogue = SHIPPED) -> dict[str, int]:
    """Each intent the rows of a ticket file carry that ``catalogue`` lacks, with how many rows carry it
    (in order of first appearance); rows that are not tickets are skipped (`load_tickets` names them)."""
    found: dict[str, int] = {}
    with resolve_ticket_path(split_or_path).open(encoding="utf-8") as handle:
        for line in handle:
            try:
                row = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                continue
            intents = row.get("intents") if isinstance(row, dict) else None
            names = {i for i in intents if isinstance(i, str)} if isinstance(intents, list) else set()
            for name in sorted(names - set(catalogue.names)):
                found[name] = found.get(name, 0) + 1
    return found


def write_tickets(tickets: Sequence[Ticket], path: str | Path) -> None:
    """Write tickets as JSONL (one object per line)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for ticket in tickets:
            handle.write(ticket.to_json() + "\n")


def _fill(template: str, rng: random.Random) -> str:
    def slot(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "order":
            digits = str(rng.randint(10000, 999999))
            return rng.choice([f"#{digits}", digits, f"ORD-{digits}", f"no. {digits}"])
        return rng.choice(SLOTS[key])

    return re.sub(r"\{(\w+)\}", slot, template)


def _typo(word: str, rng: random.Random) -> str:
    """One realistic slip of the finger: swap, drop, double or hit a neighbouring key."""
    if len(word) < 4 or not word.isalpha():
        return word
    i = rng.randrange(1, len(word) - 1)
    kind = rng.random()
    if kind < 0.3:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if kind < 0.55:
        return word[:i] + word[i + 1 :]
    if kind < 0.75:
        return word[:i] + word[i] + word[i:]
    neighbours = KEYBOARD_NEIGHBOURS.get(word[i].lower())
    return word[:i] + rng.choice(neighbours) + word[i + 1 :] if neighbours else word


def _add_noise(text: str, rng: random.Random) -> str:
    typo_rate = rng.choice([0.0, 0.0, 0.04, 0.08, 0.12])
    casual = rng.random() < 0.3
    words = []
    for word in text.split(" "):
        bare = word.lower().strip(".,!?")
        if casual and bare in CASUAL_SUBSTITUTIONS:
            word = word.lower().replace(bare, CASUAL_SUBSTITUTIONS[bare], 1)
        elif rng.random() < typo_rate:
            word = _typo(word, rng)
        words.append(word)
    text = " ".join(words)
    if rng.random() < 0.3:
        text = text.lower()
    if rng.random() < 0.25:
        text = text.rstrip(".!")
    return text


def _clause(intent: str, families: Sequence[str], rng: random.Random, train_only: bool) -> str:
    weights = [FAMILY_WEIGHTS.get(family, 1.0) for family in families]
    family = rng.choices(list(families), weights=weights)[0]
    templates = INTENT_TEMPLATES[intent][family]
    if train_only:
        # Every EVAL_ONLY_EVERY-th phrasing is never shown in train: evaluation then measures
        # generalisation to new wording of known needs, not recall of memorised templates.
        templates = [t for i, t in enumerate(templates) if i % EVAL_ONLY_EVERY != EVAL_ONLY_EVERY - 1]
    return _fill(rng.choice(templates), rng)


def _sample_intents(rng: random.Random) -> list[str]:
    draw = rng.random()
    if draw < 0.70:
        return [rng.choice(INTENTS)]
    if draw < 0.92:
        if rng.random() < 0.6:
            return list(rng.choice(COMMON_PAIRS))
        return rng.sample(INTENTS, 2)
    if rng.random() < 0.5:
        pair = list(rng.choice(COMMON_PAIRS))
        return pair + [rng.choice([i for i in INTENTS if i not in pair])]
    return rng.sample(INTENTS, 3)


def generate_ticket(
    ticket_id: str, rng: random.Random, holdout: bool = False, train_only: bool = False
) -> Ticket:
    """One synthetic ticket.

    ``holdout=True`` uses only the held-out template families and connectors; ``train_only=True``
    leaves out the evaluation-only phrasings (every `EVAL_ONLY_EVERY`-th template of a family).
    """
    intents = _sample_intents(rng)
    families = HOLDOUT_FAMILIES if holdout else TRAIN_FAMILIES
    parts = [_clause(intent, families, rng, train_only) for intent in intents]
    text = parts[0]
    connectors = HOLDOUT_CONNECTORS if holdout else CONNECTORS
    for part in parts[1:]:
        connector = rng.choice(connectors)
        if connector[-2:] not in (". ", ": "):
            part = part[0].lower() + part[1:]  # the clause continues a sentence
        if connector.startswith(". ") and text.endswith(("?", "!", ".")):
            text = text + " " + connector[2:] + part
        else:
            text = text.rstrip(".") + connector + part
    if rng.random() < 0.25:
        negatable = [i for i in DISTRACTORS if i not in intents]
        distractor = rng.choice(DISTRACTORS[rng.choice(negatable)])
        if distractor.endswith(","):
            text = distractor + " " + text[0].lower() + text[1:]
        else:
            text = text + " " + distractor if rng.random() < 0.5 else distractor + " " + text
    if rng.random() < 0.2:
        text = _fill(rng.choice(NEUTRAL_CONTEXT), rng) + " " + text
    if rng.random() < 0.4:
        text = rng.choice(HOLDOUT_OPENERS if holdout else OPENERS) + " " + text
    if rng.random() < 0.35:
        text = text + " " + _fill(rng.choice(HOLDOUT_CLOSERS if holdout else CLOSERS), rng)
    return Ticket(id=ticket_id, text=_add_noise(text, rng), intents=_sorted_intents(intents))


def generate_tickets(
    n: int,
    seed: int = 0,
    holdout: bool = False,
    train_only: bool = False,
    prefix: str = "cs",
    start: int = 0,
    exclude: set[str] | None = None,
) -> list[Ticket]:
    """``n`` distinct tickets (texts in ``exclude`` or already drawn are redrawn), reproducible from ``seed``."""
    rng = random.Random(seed)
    tickets: list[Ticket] = []
    texts: set[str] = set(exclude or ())
    while len(tickets) < n:
        ticket = generate_ticket(
            f"{prefix}-{start + len(tickets):05d}", rng, holdout=holdout, train_only=train_only
        )
        if ticket.text.lower() in texts:
            continue
        texts.add(ticket.text.lower())
        tickets.append(ticket)
    return tickets


def generate_dataset(
    out_dir: str | Path, n: int = 3600, n_holdout: int = 400, seed: int = 0
) -> dict[str, int]:
    """Write train (2/3), validation (1/6), test (1/6) and holdout_styles JSONL files; return their sizes.

    Train uses only the train phrasings; validation and test use all phrasings of the same families
    (about a quarter of their clauses are worded in ways train never shows); no text repeats across splits.
    """
    out_dir = Path(out_dir)
    n_train, n_val = (2 * n) // 3, n // 6
    train = generate_tickets(n_train, seed=seed, train_only=True)
    held = generate_tickets(
        n - n_train, seed=seed + 2, start=n_train, exclude={t.text.lower() for t in train}
    )
    splits = {
        "train": train,
        "validation": held[:n_val],
        "test": held[n_val:],
        HOLDOUT_STYLES: generate_tickets(n_holdout, seed=seed + 1, holdout=True, prefix="cs-holdout"),
    }
    for name, rows in splits.items():
        write_tickets(rows, out_dir / f"{name}.jsonl")
    return {name: len(rows) for name, rows in splits.items()}


def main(argv: Sequence[str] | None = None) -> None:
    """CLI: generate the customer-service ticket dataset."""
    parser = argparse.ArgumentParser(description="Generate customer-service tickets (JSONL splits).")
    parser.add_argument("--out", default=str(DEFAULT_DATA_DIR), help="output directory")
    parser.add_argument("--n", type=int, default=3600, help="tickets in train+validation+test")
    parser.add_argument("--holdout", type=int, default=400, help="tickets in holdout_styles.jsonl")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    sizes = generate_dataset(args.out, n=args.n, n_holdout=args.holdout, seed=args.seed)
    for name, size in sizes.items():
        print(f"{name}: {size} tickets -> {Path(args.out) / (name + '.jsonl')}")


if __name__ == "__main__":
    main()


ROLE_ACTIONS: dict[str, tuple[str, ...]] = {
    "shopping_guide": ("pass", "answer_product_question", "recommend_product"),
    "logistics": ("pass", "track_order", "explain_delay", "change_address"),
    "dispute_mediator": ("pass", "process_refund", "handle_damage", "resolve_complaint"),
    SUPERVISOR: ("continue", "approve", "send_back"),
}
"""Action names per agent; an agent's action is the index into its tuple."""
