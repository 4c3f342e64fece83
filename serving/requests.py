"""Which item a free-text request asks for: the report topic, the writing brief or the coding task.

A customer-service team reads the ticket itself; the writing workflows play one item of their data (a
corpus topic, a brief, a task), so a user's request ("how fast are heat pumps being installed?") must first
be matched to one. The request names the item (its id, underscores as spaces), or it is the item whose
description is nearest in meaning: cosine similarity of the team's own backbone vectors, which reads
paraphrases that share no word with the description. Without a backbone, words shared with the description
count, each weighted by how rare it is among the descriptions.

A request may ask for something the team cannot do at all ("an announcement for our garden lamp" to a team
that writes posts from its briefs): its nearest item is then unrelated, and the team must say so instead of
answering it. The *similarity floor* separates the two, and it is measured on shipped data rather than
chosen: the requests other teams are sent (`foreign_requests`: every registered environment's
``example_requests``, e.g. the hand-written customer-service tickets) are out of scope for a writing team,
so the floor is the highest similarity any of them reaches to one of the team's items, with the team's
own backbone. A request at or under it is no closer to the team's work than another team's mail is, and
`match` says ``in_scope: False``; a request that names an item is always in scope.
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
    ):
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
        self.floor = max(self._best_scores(list(foreign)), default=0.0)
        """The similarity floor (module docstring): the best score any foreign request reaches."""

    @classmethod
    def for_env(cls, env: Any, embed: Embed | None = None) -> RequestMatcher | None:
        """A matcher over ``env``'s items, or None for an environment that reads its request itself."""
        items = getattr(env, "request_items", None)
        if not callable(items):
            return None
        return cls(env.item_option, items(), embed, foreign_requests(type(env)))

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
                return (queries @ self._vectors.T).max(dim=1).values.tolist()
        return [max(self._scores(text)[0]) for text in texts]

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
