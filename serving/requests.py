"""Which item a free-text request asks for: the report topic, the writing brief or the coding task.

A customer-service team reads the ticket itself; the writing workflows play one item of their data (a
corpus topic, a brief, a task), so a user's request ("how fast are heat pumps being installed?") must first
be matched to one. The request names the item (its id, underscores as spaces), or it is the item whose
description is nearest in meaning: cosine similarity of the team's own backbone vectors, which reads
paraphrases that share no word with the description. Without a backbone, words shared with the description
count, each weighted by how rare it is among the descriptions.

A request may ask for something the team cannot do at all ("an announcement for our garden lamp" to a team
that writes posts from its briefs): its nearest item is then unrelated, and the team must say so instead of
answering it. The *similarity floor* separates the two, and it is chosen on data rather than typed: the
environment's scope dev set (``scope_requests("dev")``: paraphrases of its items in several voices marked in
scope, other domains and near misses marked out of scope) plus the requests other teams are sent
(`foreign_requests`, e.g. the hand-written customer-service tickets, all out of scope). `similarity_floor`
takes the cut with the highest balanced accuracy on them, in the middle of the widest gap where that
accuracy holds. A request at or under the floor gets ``in_scope: False``; one that names an item is always
in scope. Its score against an item is the better of its cosine to the item's description and to the
item's name (the part before the colon): a short request ("coral bleaching") reads as the name, a long one
as the description. Measured on the scope sets (tests/serving/test_request_matching.py), this beat the
cosine to the description alone and the margin of the best item over the mean.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

from agents.envs import REGISTRY, EnvironmentUnavailableError, env_class

OUT_OF_SCOPE = "out_of_scope"
"""The status of a request the team cannot do, and the fault kind its reply and review show."""
Embed = Callable[[Sequence[str]], "torch.Tensor | None"]
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    # a plural and its singular are one word here ("pumps" / "pump"); nothing more clever is needed
    return {
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in _WORD.findall(text.lower())
    }


class RequestMatcher:
    """``match(text)`` → the item a request asks for, how sure the match is, and the runner-up."""

    def __init__(
        self,
        option: str,
        items: Mapping[str, str],
        embed: Embed | None = None,
        foreign: Sequence[str] = (),
        scope: Sequence[tuple[str, bool]] = (),
    ):
        if not items:
            raise ValueError("a request matcher needs at least one item")
        self.option = option
        """The reset option that plays an item (``topic``, ``brief``, ``task``)."""
        self.ids = list(items)
        self.descriptions = [items[i] for i in self.ids]
        self._embed = embed
        self._vectors = embed(self.descriptions) if embed is not None else None
        names = [d.split(":", 1)[0] for d in self.descriptions]
        self._name_vectors = embed(names) if embed is not None else None
        self._bags = [_words(d) for d in self.descriptions]
        counts = Counter(w for bag in self._bags for w in bag)
        self._idf = {w: math.log((1 + len(self.ids)) / (1 + c)) + 1.0 for w, c in counts.items()}
        texts = [t for t, _ in scope] + list(foreign)
        wanted = [bool(k) for _, k in scope] + [False] * len(foreign)
        scored = zip(self._best_scores(texts), wanted, strict=True)
        accepted, declined = [], []
        for score, in_scope in scored:
            (accepted if in_scope else declined).append(score)
        self.floor = similarity_floor(accepted, declined)
        """The similarity floor (module docstring), chosen on the scope dev set and other teams' requests."""

    @classmethod
    def for_env(cls, env: Any, embed: Embed | None = None) -> RequestMatcher | None:
        """A matcher over ``env``'s items, or None for an environment that reads its request itself."""
        items = getattr(env, "request_items", None)
        if not callable(items):
            return None
        scope = getattr(env, "scope_requests", None)
        dev = scope("dev") if callable(scope) else []
        return cls(env.item_option, items(), embed, foreign_requests(type(env)), dev)

    def offers(self, limit: int = 6) -> list[str]:
        """What the team can do, in words: the names of its first ``limit`` items (the part of each
        description before its colon)."""
        return [d.split(":", 1)[0].strip() for d in self.descriptions[:limit]]

    def match(self, text: str) -> dict[str, Any]:
        """``{"item", "score", "runner_up", "by", "floor", "in_scope"}``; ``by`` is "name", "meaning" or
        "words"; ``in_scope`` is False when the best score is at or under the floor (module docstring)."""
        lowered = f" {' '.join(_WORD.findall(text.lower()))} "
        named = [
            i for i in self.ids if f" {' '.join(_WORD.findall(i.lower().replace('_', ' ')))} " in lowered
        ]
        if len(named) == 1:
            return {"item": named[0], "score": 1.0, "runner_up": None, "by": "name", "floor": round(self.floor, 4),
                    "in_scope": True}  # fmt: skip
        scores, by = self._scores(text)
        order = sorted(range(len(self.ids)), key=lambda k: -scores[k])
        best, second = order[0], order[1] if len(order) > 1 else None
        return {
            "item": self.ids[best],
            "score": round(float(scores[best]), 4),
            "runner_up": None if second is None else self.ids[second],
            "by": by,
            "floor": round(self.floor, 4),
            # above by more than float noise: texts embedded in one batch differ from alone in the 7th digit
            "in_scope": bool(scores[best] > self.floor + 1e-4),
        }

    def _best_scores(self, texts: list[str]) -> list[float]:
        """Each text's score to its nearest item (one backbone call for all of them)."""
        if not texts:
            return []
        if self._vectors is not None and self._embed is not None:
            queries = self._embed(texts)
            if queries is not None:
                return self._meaning(queries).max(dim=1).values.tolist()
        return [max(self._scores(text)[0]) for text in texts]

    def _meaning(self, queries: torch.Tensor) -> torch.Tensor:
        """queries × items: the better of each query's cosine to the item's description and to its name."""
        return torch.maximum(queries @ self._vectors.T, queries @ self._name_vectors.T)

    def _scores(self, text: str) -> tuple[list[float], str]:
        if self._vectors is not None and self._embed is not None:
            query = self._embed([text])
            if query is not None:
                return self._meaning(query)[0].tolist(), "meaning"
        bag = _words(text)
        return [
            sum(self._idf[w] for w in bag & item) / (1e-9 + sum(self._idf[w] for w in item))
            for item in self._bags
        ], "words"


def similarity_floor(accepted: Sequence[float], declined: Sequence[float]) -> float:
    """The floor (a request is in scope when its score is above it) that best separates the scores of
    requests a team should ``accepted`` from those it should decline.

    A cut ``t`` accepts the scores above it; its balanced accuracy is the mean of the share of ``accepted``
    above ``t`` and the share of ``declined`` at or under it, which weighs both kinds equally however many
    of each there are. It only changes at the scores themselves, so the cuts worth trying are the sorted
    distinct scores ``s_1 < … < s_n``: cutting at ``s_i`` holds on ``[s_i, s_(i+1))``. Of the cuts with the
    highest accuracy, the floor is the middle of the widest such gap, as far as possible from a score on
    either side. Example: accepted ``[0.5, 0.7]``, declined ``[0.2, 0.3, 0.6]``: cutting at 0.3 scores
    (2/2 + 2/3) / 2 = 0.83, at 0.6 (1/2 + 3/3) / 2 = 0.75, so the floor is (0.3 + 0.5) / 2 = 0.4.
    Without accepted scores the floor is the highest declined one (0.0 with neither).
    """
    if not accepted:
        return max(declined, default=0.0)
    cuts = sorted(set(accepted) | set(declined))
    uppers = [*cuts[1:], cuts[-1]]

    def balanced_accuracy(cut: float) -> float:
        kept = sum(s > cut for s in accepted) / len(accepted)
        refused = sum(s <= cut for s in declined) / len(declined) if declined else 1.0
        return (kept + refused) / 2

    lowest = min(cuts[0], min(accepted)) - 1e-9  # accepting everything is a cut too
    scored = [(balanced_accuracy(lowest), 0.0, lowest, lowest)]
    scored += [(balanced_accuracy(c), upper - c, c, upper) for c, upper in zip(cuts, uppers, strict=True)]
    _, _, low, high = max(scored, key=lambda row: (round(row[0], 12), row[1]))
    return (low + high) / 2


def foreign_requests(own: type) -> list[str]:
    """Requests other teams are sent: the ``example_requests()`` of every registered environment class
    but ``own`` (one that cannot be imported here is skipped, as the designer's catalogue skips it)."""
    texts: list[str] = []
    for name in sorted(REGISTRY):
        try:
            cls = env_class(name)
        except EnvironmentUnavailableError:
            continue
        examples = getattr(cls, "example_requests", None)
        if cls is not own and callable(examples):
            texts += [str(t) for t in examples()]
    return texts
