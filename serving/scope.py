"""Whether a ticket is within a routing team's intent catalogue at all (docs/decisions/0020-out-of-scope-gate.md).

A routing team (customer service, or any catalogue a spec declares) always answers with some intent of its
own, however far the ticket is from all of them: "I was charged twice" came back as a return label at
97 % confidence. The breaker cannot catch what the team is sure of, so the ticket is checked before the team
plays it. Its *scope score* is its best cosine similarity, on the frozen backbone's sentence vectors, to the
catalogue's intents (``"name: description"``) and to the labelled tickets the team was trained on. A ticket
at or under the *scope floor* is out of scope: the team does not answer it, the reply says so in words and
hands it to a person (`handoff_reply`), and the episode is logged with status ``out_of_scope``.

When the catalogue also has labelled *out-of-scope* tickets (``outside``: rows with no intents, e.g. the
customer-service generator's `out_of_scope` source), the score is a contrast instead: the mean cosine of
the ticket's ``NEIGHBOURS`` nearest in-scope anchors minus that of its nearest out-of-scope ones. On dev
(validation split vs generated and hand-written out-of-scope dev tickets) this separated best: AUROC 0.997
against 0.979 for the best cosine alone, with 8 % instead of 30 % of the out-of-scope dev tickets above a
floor that keeps 99 % of the in-scope ones (docs/experiments/2026-12-05-out-of-scope.md).

With out-of-scope tickets and labelled in-scope ones, the gate has a second signal (`serving.scope_none`,
decision 0041): a regression over the intents plus a "none" class, on the same vectors, gives each ticket's
``in_scope_probability``; a ticket at or under the floor is still kept when that probability is at least
`NONE_THRESHOLD` (0.95), so it is turned away only when both say so. On our sets this kept 2 of the 8
hand-written in-scope tickets the floor alone turned away, with no out-of-scope test ticket more answered.

The floor is chosen on in-scope data, not typed: the highest cut that keeps ``keep`` (99.5 %) of the dev
in-scope tickets above it. The dev tickets are the environment's dev split when it has one
(``dev_tickets()``), else the labelled tickets. Fewer than ``1 / (1 - keep)`` (200) of them cannot show the
0.5 % quantile: the floor is then the lower of their lowest score and the normal quantile of ``keep`` fitted
to them, the tail the sample is too small to show, extrapolated (`in_scope_floor`; decision 0042: a 70-row
upload's floor was the lowest of its 7 dev tickets and kept 93-95 % of the in-scope tickets, not 99.5 %).
Either way they are in-scope anchors too, and each is scored against all the other anchors, leaving itself
out: a dev split is labelled in-scope data and the wordings it adds are ones later tickets share, so an
in-scope ticket finds nearer neighbours; left out in turn, its scores are what a new ticket's would be. On dev
(validation halves: the floor from one, kept share measured on the other) this halved the out-of-scope dev
tickets let through at the same in-scope cost, which bought the stricter ``keep``: 0.6 % of in-scope tickets
turned away instead of 1.3 %, the in-scope budget being one point
(docs/decisions/0031-scope-floor-from-dev-anchors.md). Nothing here knows a domain: any catalogue with
descriptions and labelled tickets works, and a catalogue without labelled tickets is judged by its
descriptions alone.

Building a gate encodes every anchor and out-of-scope ticket (thousands for the shipped template: ~50 s on
a 2-core CPU). Given a ``store`` directory (a server passes the deployment's checkpoint directory), the
vectors are written there once, under a key of the backbone and the texts, and a later gate over the same
texts on the same backbone reads them instead of encoding them again (`describe()["vectors"]` says which).

    gate = ScopeGate(catalogue, examples, backbone.encode, dev=dev_texts)
    gate.check("thanks!")  # {"in_scope": False, "score": 0.31, "floor": 0.46, "nearest": "complaint", ...}
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import zipfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import torch

from serving.scope_none import NONE_THRESHOLD, NoneClass

__all__ = [
    "OUT_OF_SCOPE",
    "KEEP",
    "NEIGHBOURS",
    "NONE_THRESHOLD",
    "ScopeGate",
    "catalogue_of",
    "handoff_detail",
    "handoff_text",
    "in_scope_floor",
]

OUT_OF_SCOPE = "out_of_scope"
"""The episode status and fault kind of a ticket outside the catalogue (as for the writing teams)."""
KEEP = 0.995
"""Share of in-scope dev tickets the floor keeps: half the in-scope exact match budget of one point, so that
the spread between dev and later tickets stays within it (at 0.99 the test split lost 1.2 points)."""
NEIGHBOURS = 5
"""Nearest anchors averaged on each side of the contrast score (chosen on dev among 1, 3, 5, 10, 20)."""
Embed = Callable[[Sequence[str]], "torch.Tensor | None"]
STORE_FILE = "scope_gate.npz"
"""The gate's vectors in its ``store`` directory: one file, replaced when the texts or the backbone change."""
log = logging.getLogger(__name__)


def _unit(vectors: torch.Tensor) -> np.ndarray:
    return torch.nn.functional.normalize(vectors.detach().float(), dim=1).cpu().double().numpy()


def _text(row: Any) -> str:
    return str(row["text"] if isinstance(row, Mapping) else getattr(row, "text", row))


def _intents(row: Any) -> tuple[str, ...]:
    return tuple(row.get("intents") or () if isinstance(row, Mapping) else getattr(row, "intents", ()))


def _quantile_rows(keep: float = KEEP) -> int:
    """How many scores it takes for the ``1 - keep`` quantile to be one of them (200 at 0.995)."""
    return int(np.ceil(1.0 / (1.0 - keep) - 1e-9))


def in_scope_floor(scores: Sequence[float], keep: float = KEEP) -> float:
    """The highest floor that keeps at least ``keep`` of ``scores`` above it: just under the score at the
    ``1 - keep`` quantile. Example: 200 scores, keep 0.99: the two lowest may fall under it, the floor sits
    just under the third lowest. With fewer than ``1 / (1 - keep)`` the quantile lies beyond the lowest score:
    the floor is the lower of the lowest score and ``mean - z * sd``, ``z`` the normal quantile of ``keep``
    (2.58 at 0.995): the tail the sample is too small to show, extrapolated."""
    if not len(scores):
        return 0.0
    ranked = np.sort(np.asarray(scores, dtype=float))
    may_drop = int(np.floor((1.0 - keep) * len(ranked) + 1e-9))
    floor = float(ranked[min(may_drop, len(ranked) - 1)] - 1e-6)
    if len(ranked) < _quantile_rows(keep) and len(ranked) > 1:
        # the plug-in normal quantile (not Student's bound, whose width at a handful of scores turns away
        # nothing, not even a lasagne recipe from a two-intent helpdesk: decision 0042)
        floor = min(floor, float(ranked.mean() - NormalDist().inv_cdf(keep) * ranked.std(ddof=1)))
    return floor


class ScopeGate:
    """The scope score and floor of one routing catalogue (module docstring); thread-safe after construction."""

    def __init__(
        self,
        catalogue: Sequence[Mapping[str, Any]],
        examples: Sequence[Any],
        embed: Embed,
        dev: Sequence[Any] = (),
        keep: float = KEEP,
        outside: Sequence[Any] = (),
        store: str | Path | None = None,
        backbone_key: str = "",
    ):
        """``store``: a directory to keep the encoded vectors in (module docstring); ``backbone_key`` names
        the backbone in their key (a backbone changed under the same name is caught by re-encoding one)."""
        if not catalogue:
            raise ValueError("a scope gate needs an intent catalogue")
        self.intents = [str(entry["name"]) for entry in catalogue]
        self._embed = embed
        anchors = [f"{e['name'].replace('_', ' ')}: {e.get('description') or ''}".strip() for e in catalogue]
        # the floor's tickets (dev, else the labelled ones) are anchors too, each scored leaving itself out
        floor_rows = list(dev) or list(examples)
        texts = [_text(r) for r in examples] + [_text(r) for r in dev]
        self._anchor_owner = list(self.intents) + [(_intents(r) or ("",))[0] for r in [*examples, *dev]]
        outside_texts = [_text(r) for r in outside]
        self.vectors_from = "encoded"
        """"store" when the vectors were read from ``store``, "encoded" when the backbone encoded them."""
        self._anchors, self._outside = self._encoded(anchors + texts, outside_texts, store, backbone_key)
        labelled = self._anchors[len(anchors) : len(anchors) + len(examples)]
        self.none_class = (
            None
            if self._outside is None
            else NoneClass.fit(labelled, [_intents(r) for r in examples], self._outside)
        )
        """The second signal (module docstring): None without out-of-scope or labelled in-scope tickets."""
        self.keep = keep
        self.floor_from = "dev" if dev else "leave_one_out" if examples else "none"
        first = len(self._anchors) - len(floor_rows)
        self.floor_scores = self._left_out_scores(first) if floor_rows else np.zeros(0)
        """The floor's tickets' scope scores, each against the anchors without itself."""
        self.floor = in_scope_floor(list(self.floor_scores), keep)
        """A ticket scoring at or under this is out of scope."""

    @classmethod
    def for_env(
        cls,
        env: Any,
        embed: Embed | None,
        keep: float = KEEP,
        dev: Sequence[Any] | None = None,
        outside: Sequence[Any] = (),
        store: str | Path | None = None,
        backbone_key: str = "",
    ) -> ScopeGate | None:
        """The gate of a routing environment instance: its catalogue (``catalogue.descriptions`` or
        ``intent_catalogue``), its labelled ``tickets``, ``dev`` (default: its ``dev_tickets()`` when it has
        them) and labelled out-of-scope tickets ``outside`` (the routing interface's
        ``out_of_scope_tickets``); None for an environment without a catalogue or a team without a backbone.
        ``store`` and ``backbone_key``: where its vectors are kept (``__init__``)."""
        env = getattr(env, "unwrapped", env)
        catalogue = catalogue_of(env)
        if embed is None or not catalogue:
            return None
        if dev is None:
            dev_hook = getattr(env, "dev_tickets", None)
            dev = list(dev_hook()) if callable(dev_hook) else []
        examples = [t for t in getattr(env, "tickets", ()) if _intents(t)]
        return cls(
            catalogue,
            examples,
            embed,
            dev=dev,
            keep=keep,
            outside=outside,
            store=store,
            backbone_key=backbone_key,
        )

    def _left_out_scores(self, first: int) -> np.ndarray:
        """Scope scores of the anchors from row ``first`` on, each with its own column left out (its own
        vector would score 1.0)."""
        vectors = self._anchors[first:]
        similarity = vectors @ self._anchors.T
        similarity[np.arange(len(vectors)), first + np.arange(len(vectors))] = -1.0
        return self._score(similarity, vectors)

    def _encoded(
        self, anchors: list[str], outside: list[str], store: str | Path | None, backbone_key: str
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The unit vectors of the anchors and out-of-scope texts (None without any): read from ``store``
        when it holds them for these texts and this backbone, else encoded (and written there)."""
        key = _store_key(backbone_key, anchors, outside)
        kept = _read_store(Path(store), key, len(anchors), len(outside)) if store is not None else None
        if kept is not None and self._agrees(anchors[0], kept[0][0]):
            self.vectors_from = "store"
            return kept[0], kept[1] if outside else None
        vectors = self._vectors(anchors), self._vectors(outside) if outside else None
        if store is not None:
            _write_store(Path(store), key, *vectors)
        return vectors

    def _agrees(self, text: str, kept: np.ndarray) -> bool:
        """Whether the backbone still encodes ``text`` as it was kept: the same name may now be other weights."""
        return float(self._vectors([text])[0] @ kept) > 0.999

    def _vectors(self, texts: Sequence[str]) -> np.ndarray:
        with torch.no_grad():
            parts = [self._embed(list(texts[i : i + 128])) for i in range(0, len(texts), 128)]
        return _unit(torch.cat([p for p in parts if p is not None]))

    def _score(self, similarity: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        """Scope scores from the in-scope similarities (rows: tickets) and the tickets' vectors: the best
        cosine, or with out-of-scope anchors the contrast of the nearest ones (module docstring)."""
        if self._outside is None:
            return similarity.max(axis=1)
        return _nearest_mean(similarity) - _nearest_mean(vectors @ self._outside.T)

    def scores(self, texts: Sequence[str]) -> np.ndarray:
        """Each text's scope score (module docstring): its best cosine to an intent's description or a
        labelled ticket, or its contrast between in-scope and out-of-scope neighbours."""
        if not len(texts):
            return np.zeros(0)
        vectors = self._vectors(texts)
        return self._score(vectors @ self._anchors.T, vectors)

    def verdicts(self, texts: Sequence[str]) -> dict[str, np.ndarray | None]:
        """Per text: ``score``, ``in_scope_probability`` (the second signal; None for a gate without it) and
        ``in_scope``: above the floor, or (with the second signal) kept by it (module docstring)."""
        vectors = self._vectors(texts) if len(texts) else np.zeros((0, self._anchors.shape[1]))
        return self._verdicts(vectors @ self._anchors.T, vectors)

    def _verdicts(self, similarity: np.ndarray, vectors: np.ndarray) -> dict[str, np.ndarray | None]:
        score = self._score(similarity, vectors)
        if self.none_class is None:
            return {"score": score, "in_scope_probability": None, "in_scope": score > self.floor}
        probability = self.none_class.in_scope_probability(vectors)
        kept = (score > self.floor) | (probability >= NONE_THRESHOLD)
        return {"score": score, "in_scope_probability": probability, "in_scope": kept}

    def check(self, text: str) -> dict[str, Any]:
        """``{"in_scope", "score", "floor", "in_scope_probability", "threshold", "nearest", "by", "offers"}``:
        ``nearest`` is the intent of the closest description or labelled ticket, ``by`` which of the two it
        was; ``in_scope_probability`` and ``threshold`` are the second signal's (None without it)."""
        vectors = self._vectors([text])
        similarity = (vectors @ self._anchors.T)[0]
        best = int(similarity.argmax())
        verdict = self._verdicts(similarity[None, :], vectors)
        score, probability = float(verdict["score"][0]), verdict["in_scope_probability"]
        return {
            "in_scope": bool(verdict["in_scope"][0]),
            "score": round(score, 4),
            "floor": round(self.floor, 4),
            "in_scope_probability": None if probability is None else round(float(probability[0]), 4),
            "threshold": None if probability is None else NONE_THRESHOLD,
            "nearest": self._anchor_owner[best] or None,
            "by": "description" if best < len(self.intents) else "example",
            "offers": list(self.intents),
            "items": len(self.intents),
        }

    def describe(self) -> dict[str, Any]:
        """What the gate was built from (plain JSON)."""
        return {
            "floor": round(self.floor, 4),
            "floor_tickets": len(self.floor_scores),
            "keep": self.keep,
            "floor_from": self.floor_from,
            "intents": len(self.intents),
            "anchors": int(self._anchors.shape[0]),
            "outside": 0 if self._outside is None else int(self._outside.shape[0]),
            "score": "best_cosine" if self._outside is None else f"contrast_{NEIGHBOURS}",
            "second_signal": None if self.none_class is None else "none_class",
            "threshold": None if self.none_class is None else NONE_THRESHOLD,
            "vectors": self.vectors_from,
        }


def _store_key(backbone_key: str, anchors: Sequence[str], outside: Sequence[str]) -> str:
    digest = hashlib.sha256(backbone_key.encode())
    for part in (anchors, outside):
        digest.update(f"\x00{len(part)}".encode())
        for text in part:
            digest.update(text.encode() + b"\x00")
    return digest.hexdigest()


def _read_store(store: Path, key: str, anchors: int, outside: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The kept (anchors, outside) vectors when ``store`` holds them under ``key``, else None."""
    try:
        with np.load(store / STORE_FILE, allow_pickle=False) as kept:
            if str(kept["key"]) != key:
                return None
            vectors = kept["anchors"].astype(np.float64), kept["outside"].astype(np.float64)
    except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    return vectors if len(vectors[0]) == anchors and len(vectors[1]) == outside else None


def _write_store(store: Path, key: str, anchors: np.ndarray, outside: np.ndarray | None) -> None:
    """Keep the vectors in ``store`` (float32: they were normalised in float32), replacing the file at once so
    that another process never reads half of it; a store that cannot be written only costs the next build."""
    outside = np.zeros((0, anchors.shape[1])) if outside is None else outside
    written: Path | None = None
    try:
        with tempfile.NamedTemporaryFile(
            dir=store, prefix=".scope_gate-", suffix=".npz", delete=False
        ) as out:
            written = Path(out.name)
            np.savez(
                out, key=np.array(key), anchors=anchors.astype(np.float32), outside=outside.astype(np.float32)
            )
        os.replace(written, store / STORE_FILE)
    except OSError as exc:
        if written is not None:
            written.unlink(missing_ok=True)
        log.warning("scope gate vectors not kept in %s: %s", store, exc)


def _nearest_mean(similarity: np.ndarray, k: int = NEIGHBOURS) -> np.ndarray:
    """Per row, the mean of its ``k`` largest entries (all of them when there are fewer)."""
    k = min(k, similarity.shape[1])
    return np.sort(similarity, axis=1)[:, -k:].mean(axis=1)


def catalogue_of(env: Any) -> list[dict[str, Any]]:
    """A routing environment instance's intents as ``{name, description}`` ([] for another kind)."""
    catalogue = getattr(env, "catalogue", None)
    descriptions = getattr(catalogue, "descriptions", None)
    if isinstance(descriptions, Mapping) and descriptions:
        return [{"name": n, "description": d} for n, d in descriptions.items()]
    listing = getattr(env, "intent_catalogue", None) or ()
    return [dict(entry) for entry in listing if isinstance(entry, Mapping) and entry.get("name")]


def handoff_detail(verdict: Mapping[str, Any]) -> str:
    """Why a ticket was turned away, in one line for its fault (a `ScopeGate.check` verdict)."""
    why = (
        f"nearest intent {verdict['nearest']!r} at similarity {verdict['score']:.2f}, not above the "
        f"scope floor {verdict['floor']:.2f}"
    )
    if verdict.get("in_scope_probability") is not None:
        why += (
            f", in-scope probability {verdict['in_scope_probability']:.3f} under {verdict['threshold']:.2f}"
        )
    return f"{why}: handed to a person"


def handoff_text(team: str = "") -> str:
    """The reply to a ticket outside the catalogue: says so in words and that a person takes it over."""
    who = f"The {team} team" if team else "This team"
    return (
        f"{who} cannot help with this request: it is not one of the kinds of request the team handles. "
        "We have passed your message to a member of staff, who will reply to you in person."
    )
