"""Cutting a request (a customer ticket, a helpdesk message) into clauses: one request per piece, so a
reader can score each on its own.

A ticket with two requests ("where is my parcel, also the mug arrived cracked") averages both into one
sentence embedding; scored clause by clause and max-pooled per intent, each request stays visible
(bench/customer_service_probe.py: 0.745 → 0.895 exact match on the test split).
"""

from __future__ import annotations

import re

CLAUSE_SPLIT = re.compile(
    r"(?<=[.?!;])\s+|\s*,\s+|\s+(?:btw|also|plus|oh and|and)\s+|\s*\|\s*", re.IGNORECASE
)
ABBREVIATION_BEFORE = (
    (re.compile(r"\b(?:no|nr|num|ref)\.$", re.IGNORECASE), re.compile(r"^[#\d]")),  # "order no. 123"
    (re.compile(r"\b(?:mr|mrs|ms|dr|st|prof)\.$", re.IGNORECASE), re.compile(r"^[A-Z]")),  # "Dr. Chen"
    (re.compile(r"(?:^|\s)[A-Z]\.$"), re.compile(r"^[A-Z]")),  # an initial: "J. Chen"
)
"""A full stop that ends an abbreviation, not a sentence: (how the piece before ends, how the next starts)."""


def _ends_in_abbreviation(piece: str, following: str) -> bool:
    return any(end.search(piece) and start.match(following) for end, start in ABBREVIATION_BEFORE)


def split_clauses(text: str, limit: int | None = None) -> list[str]:
    """A text cut at sentence ends, commas, "|" and chat connectives ("btw", "also", "and"); never empty.

    A full stop after an abbreviation ("consignment no. 225756", "J. Chen") does not cut: a number or a
    name torn from the words that say what it is reads as nothing. With `limit`, clauses past the limit
    are joined into the last piece, so no words are dropped.
    """
    parts: list[str] = []
    for part in (p.strip() for p in CLAUSE_SPLIT.split(text) if p and p.strip()):
        if parts and _ends_in_abbreviation(parts[-1], part):
            parts[-1] = f"{parts[-1]} {part}"
        else:
            parts.append(part)
    parts = parts or [text]
    if limit is not None and len(parts) > limit:
        parts = parts[: limit - 1] + [" ".join(parts[limit - 1 :])]
    return parts
