"""Observations and states as float vectors: text embedded by the frozen backbone (cached), numbers as
they are; a routing environment's clause reader's per-clause blocks."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.envs.clauses import split_clauses
from agents.envs.routing import routing, start_options


class Featurizer:
    """Turns observations and states into float vectors, caching text embeddings.

    - text goes through the frozen shared backbone (`Backbone.encode`, which caches per text); with
      `clauses=True` a text becomes [embedding of the whole text ‖ element-wise max over the embeddings of
      its clauses], so a ticket with two requests keeps both visible instead of averaging them away;
      with `clause_slots=K` a text becomes K clause embeddings (zero-padded) followed by a K-long mask,
      placed after every numeric field, for an actor that scores each clause itself (`clause_block`);
      `clause_evidence` (a function of one clause, E floats) appends E numbers to each clause's
      embedding — the keyword patterns' verdicts, for reader "clause_keywords"; with `clause_whole` the
      block starts with the whole text's unit-length embedding (W = dim floats), for a reader that also
      reads the whole ticket (`ClauseReader` with ``whole``);
      with `char_ngrams=K` hashed character 3–4-gram counts (K buckets) are appended — surface cues
      (typos, product words) that a small frozen sentence encoder smooths over;
    - numbers and arrays pass through, flattened;
    - a dict (e.g. a PettingZoo Dict observation) is the concatenation of its fields in key order, minus
      the keys in `skip` (by default `action_mask`, which masks the policy instead of feeding it); the
      text fields in `whole_keys` (default ``prompt``: what the agent is told it does) are always one
      whole-text embedding placed among the numbers, never clause blocks — so an agent's prompt is an
      input of its policy, whatever the reader;
    - `None` (an agent with no observation this step) becomes zeros.
    """

    def __init__(
        self,
        backbone: Any | None = None,
        skip: Sequence[str] = (),
        clauses: bool = False,
        cache_file: str | Path | None = None,
        char_ngrams: int = 0,
        clause_slots: int = 0,
        whole_keys: Sequence[str] = ("prompt",),
        whole_anchors: Sequence[str] = (),
        clause_evidence: Callable[[str], Sequence[float]] | None = None,
        clause_whole: bool = False,
    ):
        self.backbone = backbone
        self.clause_whole = bool(clause_whole)
        self.clause_evidence = clause_evidence
        self._evidence_dim = len(clause_evidence("")) if clause_evidence is not None else 0
        self.whole_keys = set(whole_keys)
        # with anchors a whole-key text becomes its cosine similarity to each anchor text (a few numbers)
        self.whole_anchors = list(whole_anchors)
        self._anchor_matrix: torch.Tensor | None = None
        self._whole_cache: dict[str, torch.Tensor] = {}
        self.clause_slots = int(clause_slots)
        self.char_ngrams = int(char_ngrams)
        self._hasher = None
        self.skip = set(skip)
        self.clauses = clauses
        self._text_cache: dict[str, torch.Tensor] = {}
        self.cache_file = Path(cache_file) if cache_file is not None else None
        if self.cache_file is not None and self.cache_file.is_file():
            self._load_cache()

    def _ngrams(self, text: str) -> torch.Tensor:
        """Hashed, L2-normalised character 3–4-gram counts of a text (`char_ngrams` buckets)."""
        if self._hasher is None:
            from sklearn.feature_extraction.text import HashingVectorizer

            self._hasher = HashingVectorizer(
                n_features=self.char_ngrams,
                analyzer="char_wb",
                ngram_range=(3, 4),
                alternate_sign=False,
                norm="l2",
            )
        return torch.as_tensor(self._hasher.transform([text]).toarray()[0], dtype=torch.float32)

    def _cache_tag(self) -> str:
        name = getattr(self.backbone, "name", "none")
        evidence = getattr(self.clause_evidence, "__name__", "none") if self.clause_evidence else "none"
        whole = "|whole" if self.clause_whole else ""
        return f"{name}|clauses={self.clauses}|slots={self.clause_slots}|split=3|evidence={evidence}{whole}"

    def _load_cache(self) -> None:
        from safetensors import safe_open

        try:
            with safe_open(str(self.cache_file), framework="pt") as f:
                meta = f.metadata() or {}
                if meta.get("tag") != self._cache_tag():
                    return  # made with another backbone or feature layout: ignore, rebuild
                texts = json.loads(meta["texts"])
                matrix = f.get_tensor("vectors")
        except Exception:  # a damaged cache is only a cache: start over
            return
        self._text_cache.update(zip(texts, matrix, strict=True))

    def save_cache(self) -> None:
        """Write the text vectors to `cache_file` (safetensors) so the next run skips the backbone."""
        if self.cache_file is None or not self._text_cache:
            return
        from safetensors.torch import save_file

        texts = list(self._text_cache)
        self.cache_file.parent.mkdir(parents=True, exist_ok=True)
        # write then rename: a concurrent reader never sees half a file
        tmp = self.cache_file.with_name(f"{self.cache_file.name}.{os.getpid()}.tmp")
        save_file(
            {"vectors": torch.stack([self._text_cache[t] for t in texts]).contiguous()},
            str(tmp),
            metadata={"tag": self._cache_tag(), "texts": json.dumps(texts)},
        )
        os.replace(tmp, self.cache_file)

    @property
    def evidence_dim(self) -> int:
        """E: numbers `clause_evidence` appends to each clause's embedding (0 without it)."""
        return self._evidence_dim

    @property
    def clause_block(self) -> tuple[int, ...] | None:
        """(K slots, one clause's width: embedding size plus its evidence) of the clause block that ends each
        observation, or None; with `clause_whole` a third number, the whole-text vector's width W."""
        if not self.clause_slots or self.backbone is None:
            return None
        block = (self.clause_slots, int(self.backbone.dim) + self._evidence_dim)
        return (*block, int(self.backbone.dim)) if self.clause_whole else block

    def _clause_block(self, texts: Sequence[str]) -> list[torch.Tensor]:
        """[K·dim clause embeddings ‖ K mask] per text: the clauses of every text embedded in one call (with
        `clause_whole`, the whole text's unit vector first)."""
        k = self.clause_slots
        pieces = [split_clauses(t, limit=k) for t in texts]
        flat = self.backbone.encode([p for ps in pieces for p in ps]).float()
        if self.clause_evidence is not None:
            evidence = torch.tensor(
                [self.clause_evidence(p) for ps in pieces for p in ps], dtype=torch.float32
            )
            flat = torch.cat([flat, evidence.reshape(len(flat), self._evidence_dim)], dim=1)
        out, start = [], 0
        for ps in pieces:
            block = torch.zeros(k, flat.shape[1])
            block[: len(ps)] = flat[start : start + len(ps)]
            start += len(ps)
            mask = torch.zeros(k)
            mask[: len(ps)] = 1.0
            out.append(torch.cat([block.flatten(), mask]))
        if self.clause_whole:
            whole = nn.functional.normalize(self.backbone.encode(list(texts)).float(), dim=-1)
            out = [torch.cat([w, row]) for w, row in zip(whole, out, strict=True)]
        return out

    def text(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> torch.Tensor:
        """Vectors for texts ([len, dim], [len, 2·dim] with clauses, the clause block with slots), memoised.

        `progress(n)` hears how many of the distinct texts are embedded, after each backbone batch."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._text_cache]
        if progress is not None:
            progress(len(set(texts)) - len(missing))
        if missing:
            if self.backbone is None:
                raise ValueError(
                    "text observations need a backbone (agents.backbone.Backbone.load('default'))"
                )
            with torch.no_grad():
                if self.clause_slots:
                    for start in range(0, len(missing), 256):
                        chunk = missing[start : start + 256]
                        self._text_cache.update(zip(chunk, self._clause_block(chunk), strict=True))
                        if progress is not None:
                            progress(len(set(texts)) - len(missing) + start + len(chunk))
                    return torch.stack([self._text_cache[t] for t in texts])
                whole = self.backbone.encode(missing).float()
                if self.clauses:
                    pieces = [split_clauses(t) for t in missing]
                    flat = self.backbone.encode([p for ps in pieces for p in ps]).float()
                    start = 0
                    for i, ps in enumerate(pieces):
                        clause_max = flat[start : start + len(ps)].max(0).values
                        start += len(ps)
                        self._text_cache[missing[i]] = torch.cat([whole[i], clause_max])
                else:
                    for i, t in enumerate(missing):
                        self._text_cache[t] = whole[i]
        return torch.stack([self._text_cache[t] for t in texts])

    def whole(self, text: str) -> torch.Tensor:
        """One text's whole-text vector (the backbone's embedding, or its character n-grams without one)."""
        if text not in self._whole_cache:
            if self.backbone is None:
                if not self.char_ngrams:
                    raise ValueError(
                        "text observations need a backbone (agents.backbone.Backbone.load('default'))"
                    )
                self._whole_cache[text] = self._ngrams(text)
            else:
                with torch.no_grad():
                    vec = self.backbone.encode([text]).float()[0]
                    if self.whole_anchors:
                        if self._anchor_matrix is None:
                            anchors = self.backbone.encode(self.whole_anchors).float()
                            self._anchor_matrix = nn.functional.normalize(anchors, dim=-1)
                        vec = self._anchor_matrix @ nn.functional.normalize(vec, dim=0)
                    self._whole_cache[text] = vec
        return self._whole_cache[text]

    def _one(self, x: Any) -> torch.Tensor | None:
        if x is None:
            return None
        if isinstance(x, str):
            if self.backbone is None and self.char_ngrams:
                return self._ngrams(x)  # surface features only: no backbone needed (tests, tiny setups)
            vec = self.text([x])[0]
            return torch.cat([vec, self._ngrams(x)]) if self.char_ngrams else vec
        if isinstance(x, Mapping):
            keys = [k for k in sorted(x) if k not in self.skip]
            if self.clause_slots:  # the clause block ends the vector (`clause_block`)
                keys.sort(key=lambda k: isinstance(x[k], str) and k not in self.whole_keys)
            parts = [
                self.whole(x[k]) if k in self.whole_keys and isinstance(x[k], str) else self._one(x[k])
                for k in keys
            ]
            return torch.cat([p for p in parts if p is not None])
        return torch.as_tensor(np.asarray(x, dtype=np.float32)).flatten()

    def __call__(self, items: Sequence[Any], width: int | None = None) -> torch.Tensor:
        """[len(items), width] features; rows are zero-padded to `width` (default: the widest row)."""
        texts = [x for x in items if isinstance(x, str)]
        if texts and self.backbone is not None:
            self.text(texts)  # one batched backbone call for the whole step
        rows = [self._one(x) for x in items]
        # agents' observations may differ in size (e.g. their own fields): pad to a common width
        width = max([width or 0] + [r.shape[0] for r in rows if r is not None])
        return torch.stack(
            [torch.zeros(width) if r is None else nn.functional.pad(r, (0, width - r.shape[0])) for r in rows]
        )


CLAUSE_SLOTS = 8  # 99 % of tickets have at most 8 clauses; longer tails are joined into the last slot


def clause_featurizer(
    backbone: Any,
    cache_file: str | Path | None = None,
    keywords: bool = False,
    environment: Any | None = None,
    whole: bool = False,
) -> Featurizer:
    """Draft and step as numbers, then the ticket as a block of per-clause embeddings (the actors' readers);
    with `keywords` each clause also carries the keyword rules' verdict per intent. The intents and their
    rules are the routing environment's (`environment`: a spec's, with its ``name`` and ``params``; None:
    the default routing environment's shipped catalogue), asked through `agents.envs.routing`. With
    `whole` the block starts with the whole ticket's unit sentence vector (reader_whole).

    The status line is skipped: it restates the draft and step, and embedding every distinct status
    string would cost a backbone call per step.
    """
    name, params = (None, {}) if environment is None else (environment.name, dict(environment.params))
    anchors, evidence = routing(name).reader_inputs(params, keywords)

    # An agent's prompt (what it is told it handles) enters as its similarity to each intent's description:
    # 8 numbers next to the draft, not a 384-wide embedding that drowned the reader's 8 scores in the
    # trunk's input (customer-service template, seed 0: test exact match 0.72 with the embedding, 0.90
    # without the prompt; docs/experiments/2026-12-01-template-calibration.md).
    return Featurizer(
        backbone,
        skip=("status", "action_mask"),
        clause_slots=CLAUSE_SLOTS,
        cache_file=cache_file,
        whole_anchors=anchors,
        clause_evidence=evidence,
        clause_whole=whole,
    )


def featurizer_from_spec(team: Any, backbone: Any) -> Featurizer:
    """The featurizer of a spec's team (`environment.params.reader`), shared by `run_spec` and the runtime."""
    start = start_options(team.environment)
    if start.clause_reader:
        return clause_featurizer(
            backbone,
            keywords=start.reader == "clause_keywords",
            environment=team.environment,
            whole=start.whole_vector,
        )
    # an environment may name observation fields a reader skips (research_report: its free-text view)
    from agents.envs import env_class

    name = team.environment.name
    return Featurizer(backbone, skip=tuple(getattr(env_class(name), "unread_fields", ())) if name else ())
