"""Semantic compression of agent messages (the "HCP" codec, docs/design.md#semantic-compression) and its health checks.

A message is embedded by the backbone (pooled sentence vector); the sender maps it to the nearest entry
of a k-means *semantic codebook* fitted on the team's traffic and transmits the entry id plus a
quantised residual. The residual is projected onto a few fitted directions and each coordinate is
quantised to `residual_bits` bits with equal-probability bins, so the bit budget per message is
``ceil(log2 n_codes) + residual_dims * residual_bits``. The receiver rebuilds the vector and decodes the
intent with the nearest labelled centroid.

Two choices make small budgets keep the intent:
- ``residual_basis="intent"`` spends the residual bits on the directions the intent classifier looks at
  (the span of the labelled intent centroids) instead of the directions of largest residual variance.
- ``preserve_intent=True`` is closed-loop encoding: the sender, which holds the same codebook and
  classifier as the receiver, decodes its own message and, if the intent changed, tries the next
  nearest codebook entries (``search_codes``) before sending.

Also here: conversation-history compression (keep all codes, keep only the residuals that matter).
Fitting the codebook, classifier and quantiser: `codebook.py`; codebook-drift detection, whose alert is the
"communication storm" warning: `drift.py`.

The codec works on embedding arrays only; it never loads a model.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from agents.protocol.codebook import (
    IntentClassifier,
    kmeans,
    nearest,
    residual_basis,
    residual_bins,
    unit,
)
from agents.protocol.wire import (
    MAX_CODE_BITS,
    MAX_RESIDUAL_BITS,
    Frame,
    FrameKind,
    SemanticMessage,
    WireFormatError,
    decode_frame,
    encode_frame,
)


@dataclass
class CodecConfig:
    """Hyper-parameters of the semantic codec; the bit budget is code bits + dims × bits."""

    n_codes: int = 64  # k-means codebook size (code id takes ceil(log2 n_codes) bits)
    residual_dims: int = 4  # how many residual coordinates are sent
    residual_bits: int = 2  # bits per residual coordinate (0 = code only)
    residual_basis: str = "intent"  # "intent" (needs labels at fit time) or "pca"
    preserve_intent: bool = True  # closed-loop: sender checks the receiver's decoded intent
    search_codes: int = 8  # codebook entries tried by the closed-loop search
    kmeans_iters: int = 100
    kmeans_restarts: int = 2
    reservoir: int = 4000  # training vectors kept so a re-fit remembers the old traffic
    seed: int = 0

    @property
    def code_bits(self) -> int:
        """Bits needed to send one codebook id."""
        return max(1, math.ceil(math.log2(max(2, self.n_codes))))

    @property
    def bits_per_message(self) -> int:
        """Payload bits of one message in a SEMANTIC frame."""
        return self.code_bits + self.residual_dims * self.residual_bits


class CodecError(ValueError):
    """The codec was used wrongly (not fitted, bad shapes, bad configuration)."""


class SemanticCodec:
    """k-means semantic codebook + quantised residual; encode/decode arrays and HCP frames."""

    def __init__(self, config: CodecConfig | None = None):
        self.config = config or CodecConfig()
        c = self.config
        if c.residual_basis not in ("intent", "pca"):
            raise CodecError(f"residual_basis must be 'intent' or 'pca', got {c.residual_basis!r}")
        if c.code_bits > MAX_CODE_BITS:
            raise CodecError(f"n_codes={c.n_codes} needs {c.code_bits} bits; the wire allows {MAX_CODE_BITS}")
        if not 0 <= c.residual_bits <= MAX_RESIDUAL_BITS:
            raise CodecError(f"residual_bits must be 0..{MAX_RESIDUAL_BITS}, got {c.residual_bits}")
        if not 0 <= c.residual_dims <= 255:
            raise CodecError(f"residual_dims must be 0..255, got {c.residual_dims}")
        self.version = 0  # codebook version; 0 = not fitted. Carried in every frame header.
        self.centroids: np.ndarray | None = None
        self.classifier: IntentClassifier | None = None
        self.basis: np.ndarray | None = None  # (residual_dims, d)
        self.thresholds: np.ndarray | None = None  # (residual_dims, levels-1)
        self.levels: np.ndarray | None = None  # (residual_dims, levels) reconstruction values
        self._reservoir: np.ndarray | None = None
        self.baseline: dict[str, Any] = {}
        self._counts = {"encoded": 0, "closed_loop_retries": 0, "intent_kept_by_search": 0, "refits": 0}

    # ----------------------------------------------------------------------------------------- fitting
    @property
    def fitted(self) -> bool:
        """Whether a codebook exists."""
        return self.centroids is not None

    def fit(self, embeddings: np.ndarray, labels: list[str] | None = None) -> SemanticCodec:
        """Fit the codebook (and, with labels, the intent classifier) on a sample of team traffic."""
        x = self._check(embeddings)
        c = self.config
        if len(x) < c.n_codes:
            raise CodecError(f"need at least n_codes={c.n_codes} vectors to fit, got {len(x)}")
        if labels is not None:
            if len(labels) != len(x):
                raise CodecError(f"got {len(labels)} labels for {len(x)} vectors")
            self.classifier = IntentClassifier.fit(x, list(labels))
        if c.residual_basis == "intent" and self.classifier is None:
            raise CodecError("residual_basis='intent' needs labels at fit time (or use residual_basis='pca')")
        self.centroids = kmeans(x, c.n_codes, c.kmeans_iters, c.kmeans_restarts, c.seed)
        self._fit_residual(x)
        rng = np.random.default_rng(c.seed)
        keep = rng.permutation(len(x))[: c.reservoir]
        self._reservoir = x[keep]
        self.version += 1
        return self

    def refit(self, embeddings: np.ndarray, extra_codes: int = 0) -> SemanticCodec:
        """Re-fit the codebook on recent traffic plus remembered traffic, warm-started; bumps the version.

        `extra_codes` grows the codebook: new entries are seeded on the recent messages the old codebook
        serves worst, so traffic of a kind never seen before gets codes of its own instead of squeezing
        into the old ones (the frame header carries the new code width). The intent classifier is kept:
        recent traffic is unlabelled.
        """
        self._require_fitted()
        recent = self._check(embeddings)
        x = np.concatenate([self._reservoir, recent])
        c = self.config
        init = self.centroids
        if extra_codes > 0:
            new_k = len(init) + extra_codes
            if max(1, math.ceil(math.log2(new_k))) > MAX_CODE_BITS:
                raise CodecError(
                    f"a codebook of {new_k} entries does not fit the wire's {MAX_CODE_BITS} code bits"
                )
            served = 1.0 - (recent * unit(init[self._nearest(recent, 1)[:, 0]])).sum(axis=1)
            worst = recent[np.argsort(served)[::-1][:extra_codes]]
            init = np.concatenate([init, worst])
            self.config = c = replace(c, n_codes=new_k)
        self.centroids = kmeans(x, len(init), c.kmeans_iters, 1, c.seed + self.version, init=init)
        self._fit_residual(x)
        # The recent traffic's code usage is the new normal the drift monitor compares against.
        recent_profile = self._traffic_profile(recent)
        self.baseline["code_hist"] = recent_profile["code_hist"]
        self.baseline["usage_hist"] = recent_profile["usage_hist"]
        rng = np.random.default_rng(c.seed + self.version)
        self._reservoir = x[rng.permutation(len(x))[: c.reservoir]]
        self.version = self.version % 0xFFFF + 1
        self._counts["refits"] += 1
        return self

    def _fit_residual(self, x: np.ndarray) -> None:
        c = self.config
        resid = x - self.centroids[self._nearest(x, 1)[:, 0]]
        self.basis = residual_basis(
            resid, c.residual_dims, c.residual_bits, c.residual_basis, self.classifier
        )
        self.thresholds, self.levels = residual_bins(resid @ self.basis.T, c.residual_bits)
        self.baseline = self._traffic_profile(x)

    def _traffic_profile(self, x: np.ndarray) -> dict[str, Any]:
        """Distortion and code usage of a sample, used as the drift baseline."""
        codes = self._nearest(x, 1)[:, 0]
        distortion = 1.0 - (x * unit(self.centroids[codes])).sum(axis=1)
        hist = np.bincount(codes, minlength=len(self.centroids)).astype(float)
        out = {"distortion": float(distortion.mean()), "code_hist": hist / hist.sum(), "n": len(x)}
        if self.classifier is not None:
            # Usage per intent (codes grouped by the intent of their centroid): a far steadier statistic
            # than per-code usage when the window is small next to the codebook.
            groups = self.classifier.predict(self.centroids)[codes]
            ih = np.bincount(groups, minlength=len(self.classifier.names)).astype(float)
            out["usage_hist"] = ih / ih.sum()
        else:
            out["usage_hist"] = out["code_hist"]
        return out

    # ------------------------------------------------------------------------------------- encode/decode
    def encode(self, embeddings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Compress vectors to (codes [n], residual levels [n, residual_dims])."""
        self._require_fitted()
        x = self._check(embeddings)
        c = self.config
        k = min(
            c.search_codes if c.preserve_intent and self.classifier is not None else 1, len(self.centroids)
        )
        order = self._nearest(x, k)
        codes = order[:, 0].copy()
        levels = self._quantise(x - self.centroids[codes])
        self._counts["encoded"] += len(x)
        if k > 1:
            want = self.classifier.predict(x)
            bad = np.flatnonzero(self.classifier.predict(self.decode(codes, levels)) != want)
            for rank in range(1, k):
                if len(bad) == 0:
                    break
                self._counts["closed_loop_retries"] += len(bad)
                cand = order[bad, rank]
                lv = self._quantise(x[bad] - self.centroids[cand])
                ok = self.classifier.predict(self.decode(cand, lv)) == want[bad]
                codes[bad[ok]] = cand[ok]
                levels[bad[ok]] = lv[ok]
                self._counts["intent_kept_by_search"] += int(ok.sum())
                bad = bad[~ok]
        return codes, levels

    def decode(self, codes: np.ndarray, levels: np.ndarray | None = None) -> np.ndarray:
        """Rebuild vectors from codes and residual levels (levels None or empty rows = code only)."""
        self._require_fitted()
        codes = np.asarray(codes, dtype=np.int64)
        if codes.size and (codes.min() < 0 or codes.max() >= len(self.centroids)):
            raise CodecError(f"code ids must be in 0..{len(self.centroids) - 1}")
        out = self.centroids[codes].copy()
        if levels is not None and len(self.basis):
            levels = np.asarray(levels, dtype=np.int64).reshape(len(codes), -1)
            if levels.shape[1]:
                vals = np.take_along_axis(
                    self.levels[None, :, :].repeat(len(codes), 0), levels[:, :, None], 2
                )
                out += vals[:, :, 0] @ self.basis
        return out

    def intent(self, vectors: np.ndarray) -> list[str]:
        """Decode intents from (reconstructed) vectors with the labelled centroids."""
        if self.classifier is None:
            raise CodecError("the codec was fitted without labels, so it cannot decode intents")
        return self.classifier.predict_names(vectors)

    # ------------------------------------------------------------------------------------------- frames
    def to_frame(self, embeddings: np.ndarray, sender: int = 0, channel: int = 1) -> bytes:
        """Compress vectors into one SEMANTIC wire frame."""
        codes, levels = self.encode(embeddings)
        msgs = tuple(
            SemanticMessage(int(cd), tuple(int(v) for v in lv)) for cd, lv in zip(codes, levels, strict=True)
        )
        return encode_frame(self._frame(FrameKind.SEMANTIC, msgs, sender, channel))

    def from_frame(self, data: bytes) -> tuple[Frame, np.ndarray]:
        """Parse a SEMANTIC or HISTORY frame and rebuild its vectors; rejects frames of another codebook."""
        frame = decode_frame(data)
        if frame.kind not in (FrameKind.SEMANTIC, FrameKind.HISTORY):
            raise WireFormatError(f"expected a SEMANTIC or HISTORY frame, got {frame.kind.name}")
        self._require_fitted()
        if frame.codebook_version != self.version:
            raise WireFormatError(
                f"frame uses codebook version {frame.codebook_version} but this receiver has version "
                f"{self.version}: re-sync the codebook"
            )
        layout = (frame.code_bits, frame.residual_dims, frame.residual_bits)
        expect = (self.config.code_bits, len(self.basis), self.config.residual_bits if len(self.basis) else 0)
        if layout != expect:
            raise WireFormatError(
                f"frame layout (code_bits, dims, bits)={layout} does not match the codec's {expect}"
            )
        for i, m in enumerate(frame.messages):
            if m.code >= len(self.centroids):
                raise WireFormatError(
                    f"message {i}: code {m.code} is beyond the codebook size {len(self.centroids)}"
                )
        codes = np.array([m.code for m in frame.messages], dtype=np.int64)
        if frame.kind is FrameKind.SEMANTIC or all(m.residual for m in frame.messages):
            # every message carries its residual: one vectorised decode
            return frame, self.decode(codes, np.array([m.residual for m in frame.messages], dtype=np.int64))
        vecs = np.stack(
            [self.decode([m.code], [m.residual] if m.residual else None)[0] for m in frame.messages]
        )
        return frame, vecs

    def _frame(self, kind: FrameKind, msgs: tuple, sender: int, channel: int) -> Frame:
        dims = len(self.basis)
        return Frame(
            kind=kind,
            sender=sender,
            channel=channel,
            messages=msgs,
            codebook_version=self.version,
            code_bits=self.config.code_bits,
            residual_dims=dims,
            residual_bits=self.config.residual_bits if dims else 0,
        )

    # ------------------------------------------------------------------------------------- persistence
    def state(self, reservoir_rows: int = 512) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(arrays, JSON metadata) that rebuild this codec with `from_state` (safetensors + JSON, no pickle).

        Only `reservoir_rows` remembered training vectors are kept (as float32): a re-fit after loading
        remembers less of the old traffic, which keeps checkpoints small.
        """
        self._require_fitted()
        arrays = {
            "centroids": self.centroids,
            "basis": self.basis,
            "thresholds": self.thresholds,
            "levels": self.levels,
            "reservoir": self._reservoir[:reservoir_rows],
            "baseline.code_hist": self.baseline["code_hist"],
            "baseline.usage_hist": self.baseline["usage_hist"],
        }
        if self.classifier is not None:
            arrays["classifier"] = self.classifier.centroids
        meta = {
            "config": asdict(self.config),
            "version": self.version,
            "classifier_names": self.classifier.names if self.classifier is not None else None,
            "baseline": {"distortion": self.baseline["distortion"], "n": int(self.baseline["n"])},
            "counts": dict(self._counts),
        }
        # float64 so a loaded codec quantises exactly like this one; the re-fit memory can be coarser
        out = {k: np.array(v, dtype=np.float64) for k, v in arrays.items()}  # copies: no shared memory
        out["reservoir"] = out["reservoir"].astype(np.float32)
        return out, meta

    @classmethod
    def from_state(cls, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> SemanticCodec:
        """Rebuild a codec saved by `state`; raises CodecError naming what is missing or inconsistent."""
        try:
            codec = cls(CodecConfig(**meta["config"]))
            get = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items()}
            codec.centroids, codec.basis = (
                get["centroids"],
                get["basis"].reshape(-1, get["centroids"].shape[1]),
            )
            codec.thresholds, codec.levels = get["thresholds"], get["levels"]
            codec._reservoir = get["reservoir"]
            codec.baseline = {
                "distortion": float(meta["baseline"]["distortion"]),
                "n": int(meta["baseline"]["n"]),
                "code_hist": get["baseline.code_hist"],
                "usage_hist": get["baseline.usage_hist"],
            }
            if meta.get("classifier_names") is not None:
                codec.classifier = IntentClassifier(get["classifier"], meta["classifier_names"])
            codec.version = int(meta["version"])
            codec._counts.update({k: int(v) for k, v in meta.get("counts", {}).items()})
        except (KeyError, TypeError, ValueError) as exc:
            raise CodecError(
                f"saved codec state is incomplete or inconsistent ({type(exc).__name__}: {exc})"
            ) from exc
        if len(codec.centroids) != codec.config.n_codes or codec.version < 1:
            raise CodecError("saved codec state is inconsistent: codebook size or version does not match")
        return codec

    # ------------------------------------------------------------------------------------------ helpers
    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics for `metrics` events."""
        c = self.config
        return {
            "codebook_version": self.version,
            "n_codes": c.n_codes,
            "bits_per_message": c.code_bits
            + len(self.basis if self.basis is not None else []) * c.residual_bits,
            "baseline_distortion": self.baseline.get("distortion"),
            **self._counts,
        }

    def _nearest(self, x: np.ndarray, k: int) -> np.ndarray:
        return nearest(self.centroids, x, k)

    def _quantise(self, resid: np.ndarray) -> np.ndarray:
        if not len(self.basis):
            return np.zeros((len(resid), 0), dtype=np.int64)
        coords = resid @ self.basis.T
        return np.stack(
            [np.searchsorted(self.thresholds[j], coords[:, j]) for j in range(len(self.basis))], 1
        )

    def _check(self, embeddings: np.ndarray) -> np.ndarray:
        x = np.asarray(embeddings, dtype=np.float64)
        if x.ndim != 2 or x.shape[0] == 0:
            raise CodecError(f"expected a non-empty [n, dim] array of embeddings, got shape {x.shape}")
        if self.centroids is not None and x.shape[1] != self.centroids.shape[1]:
            raise CodecError(
                f"embedding dim {x.shape[1]} does not match the codebook dim {self.centroids.shape[1]}"
            )
        if not np.isfinite(x).all():
            raise CodecError("embeddings contain NaN or infinity")
        return unit(x)

    def _require_fitted(self) -> None:
        if not self.fitted:
            raise CodecError("the codec has no codebook yet: call fit() on a sample of team traffic first")


class HistoryCompressor:
    """Conversation-history compression: keep every code, keep a residual only where it matters.

    A residual matters when dropping it would change the decoded intent of that message, or when the
    message is among the `keep_recent` newest (recent context is read most, so it keeps full detail).
    """

    def __init__(self, codec: SemanticCodec, keep_recent: int = 1):
        self.codec = codec
        self.keep_recent = keep_recent
        self._counts = {"messages": 0, "residuals_kept": 0, "bytes_out": 0}

    def compress(self, codes: np.ndarray, levels: np.ndarray) -> list[SemanticMessage]:
        """Pick which residuals to keep for one history (oldest message first)."""
        codes = np.asarray(codes)
        levels = np.asarray(levels)
        full = self.codec.decode(codes, levels)
        bare = self.codec.decode(codes, None)
        clf = self.codec.classifier
        need = np.ones(len(codes), bool) if clf is None else clf.predict(full) != clf.predict(bare)
        need[max(0, len(codes) - self.keep_recent) :] = True
        if not len(self.codec.basis):
            need[:] = False
        self._counts["messages"] += len(codes)
        self._counts["residuals_kept"] += int(need.sum())
        return [
            SemanticMessage(int(cd), tuple(int(v) for v in lv) if keep else ())
            for cd, lv, keep in zip(codes, levels, need, strict=True)
        ]

    def to_frame(self, codes: np.ndarray, levels: np.ndarray, sender: int = 0) -> bytes:
        """Compress one history into a HISTORY frame (background channel)."""
        msgs = tuple(self.compress(codes, levels))
        data = encode_frame(self.codec._frame(FrameKind.HISTORY, msgs, sender, 2))
        self._counts["bytes_out"] += len(data)
        return data

    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics."""
        n = max(1, self._counts["messages"])
        return {**self._counts, "residual_keep_rate": self._counts["residuals_kept"] / n}
