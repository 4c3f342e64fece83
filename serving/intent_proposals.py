"""What the team cannot handle becomes its next skill: group out-of-scope tickets by meaning, propose intents.

A deployment collects the tickets its team recognised as outside the catalogue, and those operators
corrected to "none of these". Given their sentence vectors (the team's own frozen backbone), tickets that
mean the same thing sit close together. We group them the way density-based clustering does, simplified
to be deterministic and cheap for a few thousand tickets: the ticket with the most neighbours above a
cosine ``similarity`` seeds a group of its still-ungrouped neighbours; repeat while a group would still
hold ``min_tickets``. Tickets in no group are noise (one-off requests, chit-chat) and propose nothing.

Each group becomes a proposal a product manager can accept onto the canvas: a name and a description
from the words that set its tickets apart from the others, the tickets nearest its centre as examples,
how often it occurs, and — when it lies close to an intent already in the catalogue — which one, since
that is more likely a gap in the readers than a new intent.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

STOPWORDS = frozenset(
    """a about after again all am an and any are as at be been but by can could did do does for from get got
    had has have hello hi how i i'm if in is it it's its just me my no not of on or our please so than thank
    thanks that the their them then there this to too was we were what when which who why will with would
    you your yes hey im ive dont can't cant""".split()
)
WORD = re.compile(r"[a-z][a-z'\-]+")


@dataclass
class Proposal:
    name: str
    description: str
    tickets: int
    share: float  # of the tickets considered
    examples: list[str] = field(default_factory=list)
    members: list[int] = field(default_factory=list)  # indices into the texts given
    resembles: str | None = None  # an intent of the catalogue this group lies close to
    resemblance: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def group_by_meaning(vectors: np.ndarray, similarity: float, min_tickets: int) -> list[list[int]]:
    """Indices of each group, largest first (see the module docstring); ungrouped tickets are left out."""
    if len(vectors) == 0:
        return []
    unit = _unit(np.asarray(vectors, dtype=np.float64))
    close = (unit @ unit.T) >= similarity
    free = np.ones(len(unit), dtype=bool)
    groups: list[list[int]] = []
    while free.any():
        counts = (close & free[None, :]).sum(axis=1) * free  # neighbours still free, for free tickets
        seed = int(np.argmax(counts))
        if counts[seed] < min_tickets:
            break
        members = np.flatnonzero(close[seed] & free)
        free[members] = False
        groups.append(members.tolist())
    return groups


def _words(text: str) -> list[str]:
    return [w for w in WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 2]


def _distinctive(group: Sequence[str], others: Sequence[str], k: int) -> list[str]:
    """Words frequent in the group's tickets and rare elsewhere (document frequencies, smoothed)."""
    inside = Counter(w for t in group for w in set(_words(t)))
    outside = Counter(w for t in others for w in set(_words(t)))
    scored = {
        w: (n / len(group)) * np.log((1 + len(others)) / (1 + outside[w]))
        for w, n in inside.items()
        if n >= 2 or len(group) < 4
    }
    # ties (every unplaced ticket in one group scores each word 0) go to the word more tickets use
    return [w for w, _ in sorted(scored.items(), key=lambda kv: (-kv[1], -inside[kv[0]], kv[0]))[:k]]


def _reading_order(words: Sequence[str], texts: Sequence[str]) -> list[str]:
    """The words in the order the tickets say them ("gift card", not "card gift"): by their mean position
    among the words of the tickets that hold them."""
    places: dict[str, list[float]] = {w: [] for w in words}
    for text in texts:
        said = _words(text)
        for w in words:
            if w in said:
                places[w].append(said.index(w) / max(len(said), 1))
    return sorted(words, key=lambda w: (sum(places[w]) / len(places[w]) if places[w] else 1.0, w))


def propose_intents(
    texts: Sequence[str],
    vectors: np.ndarray,
    *,
    catalogue: Mapping[str, np.ndarray] | None = None,
    similarity: float = 0.5,
    min_tickets: int = 3,
    examples: int = 5,
    resemblance: float = 0.75,
) -> list[Proposal]:
    """Proposals from tickets the team could not place (``vectors``: one row per text, any scale).

    ``catalogue``: each existing intent's vector (e.g. its description's, or the mean of its labelled
    examples), to say when a group lies within ``resemblance`` cosine of one.
    """
    if len(texts) != len(vectors):
        raise ValueError("intent proposals: one vector per ticket")
    unit = _unit(np.asarray(vectors, dtype=np.float64)) if len(texts) else np.zeros((0, 1))
    names, known = list((catalogue or {}).keys()), None
    if names:
        known = _unit(np.stack([np.asarray(catalogue[n], dtype=np.float64) for n in names]))
    proposals, taken = [], set()
    for members in group_by_meaning(unit, similarity, min_tickets):
        inside = [texts[i] for i in members]
        outside = [t for i, t in enumerate(texts) if i not in set(members)]
        words = _distinctive(inside, outside, 3) or ["misc"]
        name = "_".join(_reading_order(words[:2], inside))
        while name in taken:
            name += "_2"
        taken.add(name)
        centre = unit[members].mean(axis=0)
        order = np.argsort(-(unit[members] @ centre))
        proposal = Proposal(
            name=name,
            description=f"Tickets about {', '.join(words)} (e.g. \u201c{inside[int(order[0])][:80]}\u201d)",
            tickets=len(members),
            share=len(members) / len(texts),
            examples=[inside[int(i)] for i in order[:examples]],
            members=[members[int(i)] for i in order],
        )
        if known is not None:
            sims = known @ (centre / max(np.linalg.norm(centre), 1e-12))
            best = int(np.argmax(sims))
            if sims[best] >= resemblance:
                proposal.resembles, proposal.resemblance = names[best], float(sims[best])
        proposals.append(proposal)
    return proposals
