"""Class-balanced oversampling of rare intents in a routing run's training tickets (the
``min_rows_per_intent`` parameter, `CustomerServiceParams`).

A new intent labelled with a few dozen tickets is drowned among thousands of generated ones: the warm
start's episodes, the clause readers and PPO's draws meet it rarely (docs/experiments/
2026-12-05-datasets.md, section 2). Every intent with fewer training rows than ``min_rows`` has its rows
repeated up to it: whole copies first, then a seeded draw of the remainder, so the same file always gives
the same tickets. Held-out tickets (dev, test, out-of-scope, hand-written sets) are never oversampled:
they measure the team, and a repeated test ticket would count twice.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.envs.customer_service.tickets import HOLDOUT_STYLES, Ticket

SEED = 0  # the remainder's draw: fixed, so a file and a value always give the same training tickets
HELD_OUT_NAMES = ("validation", "test", HOLDOUT_STYLES, "handwritten", "handwritten_voices")
HELD_OUT_SUFFIXES = (".validation", ".test", ".out_of_scope")
"""Ticket files that are never oversampled: the shipped held-out splits and sets, a dataset's dev
(``NAME.validation``), test (``NAME.test``) and out-of-scope (``NAME.out_of_scope``) files."""


def held_out(source: str | Path) -> bool:
    """Whether the ticket file ``source`` (a split, a dataset's name or a path) holds held-out tickets."""
    stem = Path(str(source)).name.removesuffix(".jsonl")
    return stem in HELD_OUT_NAMES or stem.endswith(HELD_OUT_SUFFIXES)


def intent_counts(tickets: Sequence[Ticket]) -> Counter[str]:
    """Rows per intent (a ticket with two intents counts for both)."""
    return Counter(intent for ticket in tickets for intent in ticket.intents)


def oversample(tickets: Sequence[Ticket], min_rows: int, seed: int = SEED) -> list[Ticket]:
    """``tickets`` followed by the copies that bring every intent with fewer than ``min_rows`` rows up to
    it (counted on the given rows; 0 or less: none). The copies keep text and intents and are named
    ``<id>~<k>`` (ids stay unique)."""
    tickets = list(tickets)
    counts = intent_counts(tickets)
    rng = np.random.default_rng(seed)
    copies: list[Ticket] = []
    used: Counter[str] = Counter()
    for intent in sorted(counts):  # sorted: the draw does not depend on the file's first intent
        have = counts[intent]
        if have >= min_rows:
            continue
        rows = [t for t in tickets if intent in t.intents]
        whole, remainder = divmod(min_rows - have, have)
        extra = [*(rows * whole), *(rows[int(k)] for k in sorted(rng.choice(have, remainder, replace=False)))]
        for ticket in extra:
            used[ticket.id] += 1
            copies.append(
                Ticket(id=f"{ticket.id}~{used[ticket.id]}", text=ticket.text, intents=ticket.intents)
            )
    return tickets + copies


def training_tickets(tickets: Sequence[Ticket], source: str | Path, min_rows: int) -> list[Ticket]:
    """The tickets an environment plays from file ``source``: oversampled to ``min_rows`` per intent unless
    the file holds held-out tickets (`held_out`)."""
    if min_rows <= 0 or held_out(source):
        return list(tickets)
    return oversample(tickets, min_rows)
