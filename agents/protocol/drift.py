"""Codebook-drift detection for the HCP codec (`compression.SemanticCodec`): its alert is the
"communication storm" warning (docs/design.md#communication-storms).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.protocol.compression import SemanticCodec


@dataclass
class DriftConfig:
    """When traffic no longer fits the codebook: thresholds of the storm warning."""

    window: int = 256  # recent messages compared against the fit-time baseline
    min_samples: int = 64  # no verdict before this many messages
    distortion_ratio: float = 1.2  # window mean distortion / baseline distortion
    # …and at least this much above it (1 − cosine): a codebook that fits a small vocabulary almost
    # exactly has a near-zero baseline, and a ratio of two tiny numbers is noise, not drift
    distortion_margin: float = 0.02
    psi_threshold: float = 0.5  # population stability index of usage per intent, above sampling noise
    rate_ratio: float = 4.0  # messages per second / expected rate (if an expected rate is set)
    rate_window_s: float = 10.0


class CodebookDriftMonitor:
    """Watches traffic for codebook drift and message floods; its alert is the communication-storm warning.

    Drift signals: quantisation distortion (1 − cosine to the chosen centroid) grows, or the usage
    histogram moves (population stability index over codes grouped by intent; per code without labels). A flood signal: messages per second far above the
    expected rate. Drift is answered by `refit()`; a flood by quotas and gossip fan-out (channels.py,
    gossip.py) — the alert says which.
    """

    def __init__(
        self, codec: SemanticCodec, config: DriftConfig | None = None, expected_rate: float | None = None
    ):
        self.codec = codec
        self.config = config or DriftConfig()
        self.expected_rate = expected_rate
        self._vectors: deque[np.ndarray] = deque(maxlen=self.config.window)
        self._times: deque[float] = deque()
        self.alerts = 0
        self.last: dict[str, Any] = {}
        # What normal traffic looks like; the codec's fit-time profile until `calibrate` is called. The
        # fit-time distortion is measured on the fitting sample itself, so it is optimistic for a codebook
        # that is large relative to that sample: calibrate on held-out or first live traffic when you can.
        self.baseline = dict(codec.baseline)

    def calibrate(self, embeddings: np.ndarray) -> dict[str, Any]:
        """Take the distortion and code usage of known-normal traffic as the baseline."""
        self.baseline = self.codec._traffic_profile(self.codec._check(embeddings))
        return {"distortion": self.baseline["distortion"]}

    def observe(self, embeddings: np.ndarray, now: float | None = None) -> dict[str, Any] | None:
        """Record traffic; return an alert payload (name, level, reason, figures) or None."""
        x = self.codec._check(embeddings)
        self._vectors.extend(x)
        if now is not None:
            self._times.extend([now] * len(x))
            while self._times and self._times[0] < now - self.config.rate_window_s:
                self._times.popleft()
        self.last = self._measure(now)
        reasons = []
        excess = self.last.get("distortion", 0.0) - self.baseline["distortion"]
        if self.last.get("distortion_ratio", 0) > self.config.distortion_ratio and (
            excess > self.config.distortion_margin
        ):
            reasons.append("codebook_drift")
        if self.last.get("psi", 0) > self.config.psi_threshold:
            reasons.append("code_usage_shift")
        if self.last.get("rate_ratio", 0) > self.config.rate_ratio:
            reasons.append("message_flood")
        if not reasons:
            return None
        self.alerts += 1
        action = (
            "refit the codebook" if "message_flood" not in reasons else "tighten quotas, lower gossip fan-out"
        )
        if "message_flood" in reasons and len(reasons) > 1:
            action = "refit the codebook; tighten quotas, lower gossip fan-out"
        return {
            "name": "communication_storm",
            "level": "warning",
            "reason": ",".join(reasons),
            "action": action,
            "codebook_version": self.codec.version,
            **{k: v for k, v in self.last.items() if k != "samples"},
        }

    def _measure(self, now: float | None) -> dict[str, Any]:
        out: dict[str, Any] = {"samples": len(self._vectors)}
        if len(self._vectors) >= self.config.min_samples:
            prof = self.codec._traffic_profile(np.stack(self._vectors))
            base = self.baseline
            out["distortion"] = prof["distortion"]
            out["distortion_ratio"] = prof["distortion"] / max(base["distortion"], 1e-9)
            # Add half a message to every bin (Jeffreys smoothing) so an empty bin does not explode the log.
            k = len(base["usage_hist"])
            p = (prof["usage_hist"] * prof["n"] + 0.5) / (prof["n"] + 0.5 * k)
            nb = min(base.get("n", 10**6), 10**6)
            q = (base["usage_hist"] * nb + 0.5) / (nb + 0.5 * k)
            # Small samples look shifted by sampling noise alone: subtract the PSI expected without any
            # drift, about (bins in use − 1) × (1 / window + 1 / baseline sample).
            bins = int((base["usage_hist"] > 0).sum()) - 1
            noise = bins * (1.0 / len(self._vectors) + 1.0 / base.get("n", 10**9))
            out["psi"] = float(((p - q) * np.log(p / q)).sum()) - noise
        if now is not None and self.expected_rate:
            out["rate"] = len(self._times) / self.config.rate_window_s
            out["rate_ratio"] = out["rate"] / self.expected_rate
        return out

    def recent(self) -> np.ndarray:
        """The window of recent traffic (unit vectors), for `SemanticCodec.refit`."""
        return np.stack(self._vectors)

    def refit(self, extra_codes: int = 0) -> SemanticCodec:
        """Re-fit the codebook on the recent window (optionally growing it) and reset the window.

        The distortion baseline is kept (it is the service quality normal traffic should get); the code
        usage baseline becomes that of the recent traffic under the new codebook.
        """
        self.codec.refit(self.recent(), extra_codes=extra_codes)
        self.baseline["code_hist"] = self.codec.baseline["code_hist"]
        self.baseline["usage_hist"] = self.codec.baseline["usage_hist"]
        self._vectors.clear()
        return self.codec

    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics for `metrics` events."""
        return {"alerts": self.alerts, "codebook_version": self.codec.version, **self.last}
