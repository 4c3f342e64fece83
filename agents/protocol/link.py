"""A team's message link under the Hybrid Communication Protocol: what the trainers and the runtime call.

When a team spec sets ``communication.protocol = "hcp"``, every message vector an agent sends (the
backbone embedding / observation features its message is computed from) travels as an HCP frame:

1. Before a codebook exists the first `fit_messages` messages go uncompressed (TEXT frames, counted at
   their raw size); the codebook is then fitted on that traffic — the team's own — with a PCA residual
   basis (training traffic has no intent labels).
2. From then on each sender's vectors of one tick are one SEMANTIC frame (code id + quantised residual,
   `agents.protocol.wire`); the receiver parses the bytes and rebuilds the vectors with the same
   codebook, and the team reads those reconstructions. The codec works on directions (unit vectors):
   the receiver restores the length with the mean length of the traffic each code stood for, which is
   part of the codebook, so it costs no bits per message.
3. Every frame is queued on a simulated priority link (`PriorityScheduler`): agent messages on the
   regular channel, codebook syncs (centroids and residual tables as float16, sent once per fit or
   re-fit) on the background channel; their bytes count towards the totals.
4. A `CodebookDriftMonitor` watches the traffic. A "communication storm" (drift past its thresholds)
   goes out as an ``alert`` event and the codebook is re-fitted on recent plus remembered traffic.

`metrics()` is a flat ``protocol.*`` dict the trainers merge into their ``metrics`` events (the run
page's protocol panel reads those keys); `stats()` is the nested view the runtime's `status()` shows.
`state()` / `from_state()` save and restore the codebook with the checkpoint (safetensors + JSON).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

from agents.protocol.channels import ChannelConfig, PriorityScheduler
from agents.protocol.compression import CodebookDriftMonitor, CodecConfig, DriftConfig, SemanticCodec
from agents.protocol.wire import OVERHEAD_BYTES

PROTOCOLS_WITH_LINK = ("hcp",)
SYNC_BYTES_PER_VALUE = 2  # codebook syncs ship float16 tables
KEEP_DELIVERED = 4096  # latency samples the simulated link keeps for its percentiles
SYNC_FRAME_BYTES = 1024  # a codebook sync is cut into frames of this size so it never blocks the lane
_BLAS = ThreadpoolController()  # the codec's matrices are small: BLAS threads only spin and contend


def _one_blas_thread():
    return _BLAS.limit(limits=1, user_api="blas")


@dataclass
class LinkConfig:
    """Codebook size, bit budget, when to fit, and the drift rules of one team's link."""

    n_codes: int = 64
    residual_dims: int = 8
    residual_bits: int = 2
    fit_messages: int = 1024  # messages sent uncompressed before the first codebook fit
    refit_on_storm: bool = True
    tick_ms: float = 10.0  # simulated time between two `transmit` calls (the channel latency model)
    link_bytes_per_ms: float = 1250.0  # the simulated link: 10 Mbit/s
    seed: int = 0
    drift: DriftConfig = field(default_factory=DriftConfig)

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> LinkConfig:
        """Rebuild from `asdict` output (the checkpoint's JSON)."""
        values = dict(doc)
        values["drift"] = DriftConfig(**values.get("drift", {}))
        return cls(**values)


def raw_message_bytes(message: Any) -> int:
    """Uncompressed size of a message: UTF-8 bytes of its texts, 4 bytes per number (None = 0)."""
    if message is None:
        return 0
    if isinstance(message, str):
        return len(message.encode("utf-8"))
    if isinstance(message, Mapping):
        return sum(raw_message_bytes(v) for k, v in message.items() if k != "action_mask")
    return 4 * int(np.asarray(message).size)


class HcpLink:
    """Carries a team's message vectors through semantic compression; thread-safe."""

    def __init__(self, config: LinkConfig | None = None, events: Any = None):
        self.config = c = config or LinkConfig()
        self.events = events  # an EventStream (or None): alert and log events go there
        self.codec = SemanticCodec(
            CodecConfig(
                n_codes=c.n_codes,
                residual_dims=c.residual_dims,
                residual_bits=c.residual_bits,
                residual_basis="pca",
                preserve_intent=False,
                reservoir=c.fit_messages,  # a re-fit weighs remembered and recent traffic alike
                seed=c.seed,
            )
        )
        self.monitor: CodebookDriftMonitor | None = None
        self.code_norms: np.ndarray | None = None
        self.scheduler = PriorityScheduler(ChannelConfig(link_bytes_per_ms=c.link_bytes_per_ms))
        self._pending: list[np.ndarray] = []  # raw vectors of the uncompressed period
        self._pending_norms: list[np.ndarray] = []
        self._recent: deque[np.ndarray] = deque(maxlen=c.fit_messages)  # raw vectors, for re-fits
        self._lock = threading.RLock()
        self._ticks = 0
        self._refit_at: int | None = None  # message count at which a storm's re-fit happens
        self._error = [0.0, 0]  # reconstruction error sum and count since the last `metrics()`
        self.last_error: float | None = None
        self.counts = {
            "messages": 0,
            "compressed_messages": 0,
            "frames": 0,
            "wire_bytes": 0,  # every frame's bytes (TEXT and SEMANTIC), header and CRC included
            "semantic_bytes": 0,  # the SEMANTIC frames' share of wire_bytes…
            "semantic_raw_bytes": 0,  # …and the uncompressed size of the messages they carried
            "sync_bytes": 0,  # codebook syncs on the background channel
            "raw_bytes": 0,  # the messages' uncompressed size (UTF-8 texts, 4 bytes per number)
            "dense_bytes": 0,  # the same vectors as float32 (the "dense" protocol)
            "refits": 0,
            "storms": 0,
        }

    # ---- sending ---------------------------------------------------------------------------------
    @property
    def fitted(self) -> bool:
        """Whether messages are compressed yet."""
        return self.codec.fitted

    def transmit(
        self,
        vectors: np.ndarray,
        send: np.ndarray | None = None,
        raw_bytes: np.ndarray | None = None,
    ) -> np.ndarray:
        """Send one tick of messages; returns what the receivers read.

        `vectors` [B, N, d]: sender j's message vector in each of B parallel episodes (B = 1 for one
        step of one episode). `send` [N] or [B, N] bool marks the messages actually sent (default all);
        `raw_bytes` [B, N] their uncompressed sizes (default: the float32 size). Rows not sent are
        returned unchanged. Sender j's messages of the tick form one frame.
        """
        x = np.asarray(vectors, dtype=np.float32)
        if x.ndim != 3:
            raise ValueError(f"transmit expects vectors of shape [B, N, d], got {x.shape}")
        b, n, d = x.shape
        mask = np.ones((b, n), bool) if send is None else np.broadcast_to(np.asarray(send, bool), (b, n))
        raw = np.full((b, n), 4 * d) if raw_bytes is None else np.asarray(raw_bytes).reshape(b, n)
        out = x.copy()
        with self._lock, _one_blas_thread():
            self._ticks += 1
            now = self._ticks * self.config.tick_ms
            self.scheduler.advance(now)
            sent = x[mask]
            if not len(sent):
                return out
            self.counts["messages"] += len(sent)
            self.counts["raw_bytes"] += int(raw[mask].sum())
            self.counts["dense_bytes"] += 4 * d * len(sent)
            for j in np.flatnonzero(mask.any(axis=0)):
                rows = np.flatnonzero(mask[:, j])
                if self.fitted:
                    out[rows, j] = self._send_compressed(x[rows, j], int(j), now)
                    self.counts["semantic_raw_bytes"] += int(raw[rows, j].sum())
                else:
                    # TEXT frame: a u16 length per message, then its bytes
                    size = OVERHEAD_BYTES + int((2 + raw[rows, j]).sum())
                    self._queue(int(j), "regular", size, now)
            if self.fitted:
                self._watch(sent, now)
            else:
                self._pending.append(sent)
                if sum(len(p) for p in self._pending) >= self.config.fit_messages:
                    self._fit(np.concatenate(self._pending))
                    self._pending = []
        return out

    def _send_compressed(self, x: np.ndarray, sender: int, now: float) -> np.ndarray:
        frame = self.codec.to_frame(x, sender=sender % 0x10000, channel=1)
        self._queue(sender, "regular", len(frame), now)
        self.counts["semantic_bytes"] += len(frame)
        # the receiver's side: parse the bytes, rebuild directions, restore lengths
        parsed, rebuilt = self.codec.from_frame(frame)
        codes = np.fromiter((m.code for m in parsed.messages), dtype=np.int64, count=len(parsed.messages))
        rec = (rebuilt * self.code_norms[codes, None]).astype(np.float32)
        err = np.linalg.norm(rec - x, axis=1) / np.maximum(np.linalg.norm(x, axis=1), 1e-12)
        self._error[0] += float(err.sum())
        self._error[1] += len(err)
        self.counts["compressed_messages"] += len(x)
        return rec

    def _queue(self, sender: int, channel: str, size: int, now: float) -> None:
        if channel == "background":
            self.counts["sync_bytes"] += size
        else:
            self.counts["frames"] += 1
            self.counts["wire_bytes"] += size
        self.scheduler.submit(sender, channel, size, now)
        if len(self.scheduler.delivered) > 2 * KEEP_DELIVERED:
            del self.scheduler.delivered[:-KEEP_DELIVERED]

    # ---- codebook --------------------------------------------------------------------------------
    def fit(self, vectors: np.ndarray) -> None:
        """Fit the codebook now on `vectors` [n, d] (instead of waiting for `fit_messages`)."""
        with self._lock, _one_blas_thread():
            self._fit(np.asarray(vectors, dtype=np.float32).reshape(-1, np.shape(vectors)[-1]))
            self._pending = []

    def _fit(self, x: np.ndarray) -> None:
        # Fit on three quarters of the traffic; the last quarter, unseen by k-means, is the drift
        # monitor's picture of normal distortion (the fit sample's own distortion is optimistic).
        split = max(self.codec.config.n_codes, int(len(x) * 0.75))
        fit_part, held = x[:split], x[split:]
        self.codec.fit(fit_part)
        self.code_norms = self._code_norms(x)
        self.monitor = CodebookDriftMonitor(self.codec, self.config.drift)
        if len(held) >= self.config.drift.min_samples:
            self.monitor.calibrate(held)
        self._sync("fitted", len(x))

    def _code_norms(self, x: np.ndarray) -> np.ndarray:
        """Mean length of the traffic each code stands for (the global mean for unused codes)."""
        norms = np.linalg.norm(x, axis=1)
        codes = self.codec._nearest(self.codec._check(x), 1)[:, 0]
        k = len(self.codec.centroids)
        counts = np.bincount(codes, minlength=k)
        sums = np.bincount(codes, weights=norms, minlength=k)
        return np.where(counts > 0, sums / np.maximum(counts, 1), norms.mean())

    def _sync(self, what: str, samples: int) -> None:
        """Ship the codebook to the receivers (background channel) and say so in the event log."""
        c = self.codec
        values = c.centroids.size + c.basis.size + c.levels.size + c.thresholds.size + len(self.code_norms)
        left = SYNC_BYTES_PER_VALUE * values
        while left > 0:
            chunk = min(left, SYNC_FRAME_BYTES)
            self._queue(0, "background", OVERHEAD_BYTES + chunk, self._ticks * self.config.tick_ms)
            left -= chunk
        if self.events is not None:
            self.events.emit(
                "log",
                message=f"HCP codebook {what}: {len(c.centroids)} codes, version {c.version}, "
                f"{c.config.bits_per_message} bits per message, from {samples} messages",
                source="protocol",
                codebook_version=c.version,
            )

    def _watch(self, sent: np.ndarray, now: float) -> None:
        self._recent.extend(sent)
        if self._refit_at is not None:
            if self.counts["messages"] >= self._refit_at:
                self._refit()
            return
        alert = self.monitor.observe(sent)
        if alert is None:
            return
        self.counts["storms"] += 1
        if self.events is not None:
            self.events.emit("alert", **{**alert, "level": "warn", "source": "protocol"})
        if self.config.refit_on_storm:
            # The alert fires while the window still holds old traffic: collect one more window of the
            # new traffic first, so the re-fit learns what the team says now.
            self._refit_at = self.counts["messages"] + self.config.drift.window

    def _refit(self) -> None:
        # Re-fit on the traffic since the storm (plus the codec's memory of the old), then take what the
        # new codebook does on it as normal: the next alert means the traffic moved again.
        recent = np.stack(list(self._recent)[-2 * self.config.drift.window :])
        self.codec.refit(recent)
        self.code_norms = self._code_norms(recent)
        self.monitor = CodebookDriftMonitor(self.codec, self.config.drift)
        self.monitor.calibrate(recent)
        self.counts["refits"] += 1
        self._refit_at = None
        self._sync("re-fitted after a communication storm", len(recent))

    # ---- reporting -------------------------------------------------------------------------------
    def metrics(self) -> dict[str, float | int | None]:
        """Flat ``protocol.*`` scalars for a ``metrics`` event (reconstruction error since the last call)."""
        with self._lock:
            if self._error[1]:
                self.last_error = self._error[0] / self._error[1]
                self._error = [0.0, 0]
            s = self._summary()
        return {f"protocol.{k}": v for k, v in s.items() if not isinstance(v, dict)}

    def stats(self) -> dict[str, Any]:
        """Nested statistics (the runtime's `status()`): counters, codebook, drift and channels."""
        with self._lock:
            s = self._summary()
            s["channels"] = {
                ch: {k: v for k, v in info.items() if k in ("delivered", "p50_ms", "p95_ms", "over_budget")}
                for ch, info in self.scheduler.stats().items()
                if isinstance(info, dict)
            }
        return s

    def _summary(self) -> dict[str, Any]:
        c = self.counts
        total = c["wire_bytes"] + c["sync_bytes"]
        latency = self.scheduler.latencies("regular")
        drift = self.monitor.last if self.monitor is not None else {}
        return {
            **c,
            "fitted": int(self.fitted),
            "byte_ratio": total / c["raw_bytes"] if c["raw_bytes"] else None,
            "frame_byte_ratio": (
                c["semantic_bytes"] / c["semantic_raw_bytes"] if c["semantic_raw_bytes"] else None
            ),
            "compression_ratio": c["raw_bytes"] / total if total else None,
            "dense_ratio": total / c["dense_bytes"] if c["dense_bytes"] else None,
            "codebook_size": len(self.codec.centroids) if self.fitted else 0,
            "codebook_version": self.codec.version,
            "bits_per_message": self.codec.config.bits_per_message,
            "reconstruction_error": self.last_error,
            "drift": drift.get("distortion_ratio"),
            "usage_shift": drift.get("psi"),
            "channel_p95_ms": float(np.percentile(latency, 95)) if len(latency) else None,
        }

    # ---- persistence -----------------------------------------------------------------------------
    def state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(arrays, JSON metadata) of the codebook and counters, for the checkpoint."""
        with self._lock:
            if not self.fitted:
                return {}, {"config": asdict(self.config), "fitted": False, "counts": dict(self.counts)}
            arrays, codec_meta = self.codec.state()
            arrays["code_norms"] = np.asarray(self.code_norms, dtype=np.float64)
            monitor = {
                "distortion": float(self.monitor.baseline["distortion"]),
                "n": int(self.monitor.baseline.get("n", 0)),
            }
            arrays["monitor.code_hist"] = np.asarray(self.monitor.baseline["code_hist"], dtype=np.float32)
            arrays["monitor.usage_hist"] = np.asarray(self.monitor.baseline["usage_hist"], dtype=np.float32)
            meta = {
                "config": asdict(self.config),
                "fitted": True,
                "codec": codec_meta,
                "monitor": monitor,
                "counts": dict(self.counts),
            }
            return arrays, meta

    @classmethod
    def from_state(cls, arrays: Mapping[str, Any], meta: Mapping[str, Any], events: Any = None) -> HcpLink:
        """Rebuild a link saved by `state` (raises `CodecError` / ValueError naming what is wrong)."""
        link = cls(LinkConfig.from_dict(meta["config"]), events=events)
        link.counts.update({k: int(v) for k, v in meta.get("counts", {}).items()})
        if not meta.get("fitted"):
            return link
        arrays = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items()}
        codec_arrays = {k: v for k, v in arrays.items() if not k.startswith(("monitor.", "code_norms"))}
        link.codec = SemanticCodec.from_state(codec_arrays, meta["codec"])
        link.code_norms = arrays["code_norms"]
        link.monitor = CodebookDriftMonitor(link.codec, link.config.drift)
        link.monitor.baseline = {
            **meta["monitor"],
            "code_hist": arrays["monitor.code_hist"],
            "usage_hist": arrays["monitor.usage_hist"],
        }
        return link


def make_link(protocol: str | None, events: Any = None, **overrides: Any) -> HcpLink | None:
    """The link a spec's ``communication.protocol`` asks for: an `HcpLink` for "hcp", else None
    (None and "dense" send the vectors as they are)."""
    if protocol not in PROTOCOLS_WITH_LINK:
        return None
    return HcpLink(LinkConfig(**overrides), events=events)


LINK_FILE = "protocol.safetensors"


def save_link(link: HcpLink, directory: str | Path) -> dict[str, Any]:
    """Write the link's codebook arrays to `directory/protocol.safetensors`; returns the JSON metadata
    the caller stores in its checkpoint state (under "protocol")."""
    from safetensors.numpy import save_file

    arrays, meta = link.state()
    if arrays:
        save_file(arrays, str(Path(directory) / LINK_FILE))
    return meta


def load_link(directory: str | Path, state: Mapping[str, Any], events: Any = None) -> HcpLink:
    """The link saved with a checkpoint: `state["protocol"]` (JSON) plus `protocol.safetensors`.

    Raises ValueError naming the problem when the checkpoint has no codebook or a damaged one.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    meta = state.get("protocol")
    if not isinstance(meta, Mapping):
        raise ValueError(
            f"checkpoint {str(directory)!r} has no HCP codebook: it was trained without "
            "communication.protocol = 'hcp'"
        )
    arrays: dict[str, np.ndarray] = {}
    if meta.get("fitted"):
        path = Path(directory) / LINK_FILE
        try:
            arrays = load_file(str(path))
        except (OSError, SafetensorError) as exc:
            raise ValueError(
                f"checkpoint {str(directory)!r}: cannot read the HCP codebook {LINK_FILE} ({exc})"
            ) from None
    return HcpLink.from_state(arrays, meta, events=events)
