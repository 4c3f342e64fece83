"""Which item a free-text request asks for: the report topic, the writing brief or the coding task.

A customer-service team reads the ticket itself; the writing workflows play one item of their data (a
corpus topic, a brief, a task), so a user's request ("how fast are heat pumps being installed?") must first
be matched to one. The request names the item (its id, underscores as spaces), or it is the item whose
description is nearest in meaning: cosine similarity of the team's own backbone vectors, which reads
paraphrases that share no word with the description. Without a backbone, words shared with the description
count, each weighted by how rare it is among the descriptions.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import torch

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

    def __init__(self, option: str, items: Mapping[str, str], embed: Embed | None = None):
        if not items:
            raise ValueError("a request matcher needs at least one item")
        self.option = option
        """The reset option that plays an item (``topic``, ``brief``, ``task``)."""
        self.ids = list(items)
        self.descriptions = [items[i] for i in self.ids]
        self._embed = embed
        self._vectors = embed(self.descriptions) if embed is not None else None
        self._bags = [_words(d) for d in self.descriptions]
        counts = Counter(w for bag in self._bags for w in bag)
        self._idf = {w: math.log((1 + len(self.ids)) / (1 + c)) + 1.0 for w, c in counts.items()}

    @classmethod
    def for_env(cls, env: Any, embed: Embed | None = None) -> RequestMatcher | None:
        """A matcher over ``env``'s items, or None for an environment that reads its request itself."""
        items = getattr(env, "request_items", None)
        return cls(env.item_option, items(), embed) if callable(items) else None

    def match(self, text: str) -> dict[str, Any]:
        """``{"item", "score", "runner_up", "by"}``; ``by`` is "name", "meaning" or "words"."""
        lowered = f" {' '.join(_WORD.findall(text.lower()))} "
        named = [
            i for i in self.ids if f" {' '.join(_WORD.findall(i.lower().replace('_', ' ')))} " in lowered
        ]
        if len(named) == 1:
            return {"item": named[0], "score": 1.0, "runner_up": None, "by": "name"}
        scores, by = self._scores(text)
        order = sorted(range(len(self.ids)), key=lambda k: -scores[k])
        best, second = order[0], order[1] if len(order) > 1 else None
        return {
            "item": self.ids[best],
            "score": round(float(scores[best]), 4),
            "runner_up": None if second is None else self.ids[second],
            "by": by,
        }

    def _scores(self, text: str) -> tuple[list[float], str]:
        if self._vectors is not None and self._embed is not None:
            query = self._embed([text])
            if query is not None:
                return (self._vectors @ query[0]).tolist(), "meaning"
        bag = _words(text)
        return [
            sum(self._idf[w] for w in bag & item) / (1e-9 + sum(self._idf[w] for w in item))
            for item in self._bags
        ], "words"
