"""A team's message link under the Hybrid Communication Protocol: what the trainers and the runtime call.

When a team spec sets ``communication.protocol = "hcp"``, every message vector an agent sends (the
backbone embedding / observation features its message is computed from) travels as an HCP frame:

1. Each sender has its own codebook (`SenderCodebook`): an agent's vocabulary is its own, and the frame
   header names the sender, so the receiver knows which codebook decodes a frame. A sender's first
   `fit_messages` messages go uncompressed (TEXT frames, counted at their raw size); its codebook is
   then fitted on that traffic with a PCA residual basis (training traffic has no intent labels). A
   sender that says fewer distinct things than `n_codes` gets one code per distinct message and no
   residual: its codebook is exact.
2. From then on each sender's vectors of one tick are one SEMANTIC frame (code id + quantised residual,
   `agents.protocol.wire`); the receiver parses the bytes and rebuilds the vectors, and the team reads
   those reconstructions. The codec works on directions (unit vectors): the receiver restores the
   length with the mean length of the traffic each code stood for, stored with the codebook, so it
   costs no bits per message.
3. Every frame is queued on a simulated priority link (`PriorityScheduler`): agent messages on the
   regular channel, codebook syncs (the tables as float16, once per fit or re-fit) on the background
   channel; their bytes count towards the totals.
4. A `CodebookDriftMonitor` per sender watches its traffic. A "communication storm" (drift past the
   thresholds) goes out as an ``alert`` event; one window of the new traffic later the codebook is
   re-fitted on it (plus remembered traffic) and the new version synced.

`metrics()` is a flat ``protocol.*`` dict the trainers merge into their ``metrics`` events (the run
page's protocol panel reads those keys); `stats()` is the nested view the runtime's `status()` shows.
`state()` / `from_state()` save and restore the codebooks with the checkpoint (safetensors + JSON).
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
from agents.protocol.compression import CodecConfig, SemanticCodec
from agents.protocol.drift import CodebookDriftMonitor, DriftConfig
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

    n_codes: int = 64  # per sender, at most
    residual_dims: int = 8
    residual_bits: int = 2
    fit_messages: int = 256  # messages a sender sends uncompressed before its codebook is fitted
    refit_on_storm: bool = True
    tick_ms: float = 10.0  # simulated time between two `transmit` calls (the channel latency model)
    link_bytes_per_ms: float = 1250.0  # the simulated link: 10 Mbit/s
    seed: int = 0
    # A live team's codebook is judged on a small held-out sample, so the thresholds sit further above
    # sampling noise than the defaults: 1.5× the normal distortion and 0.05 above it, a usage shift
    # (PSI) of 1.0.
    drift: DriftConfig = field(
        default_factory=lambda: DriftConfig(distortion_ratio=1.5, distortion_margin=0.05, psi_threshold=1.0)
    )

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


class SenderCodebook:
    """One sender's codebook, drift monitor and memory of its recent traffic (raw vectors)."""

    def __init__(self, sender: int, config: LinkConfig):
        self.sender, self.config = sender, config
        self.codec: SemanticCodec | None = None
        self.monitor: CodebookDriftMonitor | None = None
        self.code_norms: np.ndarray | None = None
        self.pending: list[np.ndarray] = []  # traffic of the uncompressed period
        self.recent: deque[np.ndarray] = deque(maxlen=2 * config.drift.window)
        self.refit_in: int | None = None  # messages still to collect before a storm's re-fit

    @property
    def fitted(self) -> bool:
        return self.codec is not None

    def collect(self, x: np.ndarray) -> bool:
        """Remember uncompressed traffic; fit once there is enough. Returns True when it just fitted."""
        self.pending.append(x)
        if sum(len(p) for p in self.pending) < self.config.fit_messages:
            return False
        traffic, self.pending = np.concatenate(self.pending), []
        fit, normal = self._split(traffic)
        self.codec = self._new_codec(fit).fit(fit)
        self._calibrate(traffic, normal)
        return True

    def _split(self, traffic: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # Three quarters fit the codebook; the rest, unseen by k-means, is the drift monitor's picture of
        # normal distortion (the fit sample's own distortion is optimistic).
        split = max(int(len(traffic) * 0.75), len(traffic) - self.config.drift.min_samples)
        return traffic[:split], traffic[split:]

    def _new_codec(self, traffic: np.ndarray) -> SemanticCodec:
        c = self.config
        distinct = len(np.unique(np.round(traffic, 5), axis=0))
        exact = distinct <= c.n_codes  # one code per distinct message: no residual needed
        return SemanticCodec(
            CodecConfig(
                n_codes=max(2, min(c.n_codes, distinct)),
                residual_dims=0 if exact else c.residual_dims,
                residual_bits=0 if exact else c.residual_bits,
                residual_basis="pca",
                preserve_intent=False,
                reservoir=c.fit_messages,  # a re-fit weighs remembered and recent traffic alike
                seed=c.seed + self.sender,
            )
        )

    def _calibrate(self, traffic: np.ndarray, normal: np.ndarray) -> None:
        norms = np.linalg.norm(traffic, axis=1)
        codes = self.codec._nearest(self.codec._check(traffic), 1)[:, 0]
        k = len(self.codec.centroids)
        counts = np.bincount(codes, minlength=k)
        sums = np.bincount(codes, weights=norms, minlength=k)
        # mean length of the traffic each code stands for (the overall mean for unused codes)
        self.code_norms = np.where(counts > 0, sums / np.maximum(counts, 1), norms.mean())
        self.monitor = CodebookDriftMonitor(self.codec, self.config.drift)
        if len(normal) >= self.config.drift.min_samples:
            self.monitor.calibrate(normal)
        # code usage from all of the traffic: a histogram over the codes needs more than the held-out part
        usage = self.codec._traffic_profile(self.codec._check(traffic))
        self.monitor.baseline.update({k: usage[k] for k in ("code_hist", "usage_hist", "n")})

    def send(self, x: np.ndarray) -> tuple[bytes, np.ndarray]:
        """(the SEMANTIC frame, what the receiver rebuilds from its bytes) for this sender's vectors."""
        frame = self.codec.to_frame(x, sender=self.sender % 0x10000, channel=1)
        parsed, rebuilt = self.codec.from_frame(frame)
        codes = np.fromiter((m.code for m in parsed.messages), dtype=np.int64, count=len(parsed.messages))
        return frame, (rebuilt * self.code_norms[codes, None]).astype(np.float32)

    def watch(self, x: np.ndarray) -> tuple[dict[str, Any] | None, bool]:
        """(storm alert or None, whether the codebook was just re-fitted) after sending `x`."""
        self.recent.extend(x)
        if self.refit_in is not None:
            self.refit_in -= len(x)
            if self.refit_in > 0:
                return None, False
            self._refit()
            return None, True
        alert = self.monitor.observe(x)
        if alert is not None and self.config.refit_on_storm:
            # The alert fires while the window still holds old traffic: collect one more window of the
            # new traffic first, so the re-fit learns what the sender says now.
            self.refit_in = self.config.drift.window
        return alert, False

    def _refit(self) -> None:
        # A fresh codebook on the sender's new traffic plus the codec's memory of the old (its size follows
        # the new vocabulary); what it does on the new traffic is the new normal.
        recent = np.stack(self.recent)
        fit, normal = self._split(recent)
        old = self.codec
        traffic = np.concatenate([old._reservoir, old._check(fit)])
        self.codec = self._new_codec(traffic).fit(traffic)
        self.codec.version = old.version % 0xFFFF + 1
        self._calibrate(recent, normal)
        self.refit_in = None

    def sync_values(self) -> int:
        """Numbers a receiver needs to decode with this codebook (centroids, residual tables, lengths)."""
        c = self.codec
        return c.centroids.size + c.basis.size + c.levels.size + c.thresholds.size + len(self.code_norms)

    def state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        arrays, codec_meta = self.codec.state()
        arrays["code_norms"] = np.asarray(self.code_norms, dtype=np.float64)
        arrays["monitor.code_hist"] = np.array(self.monitor.baseline["code_hist"], dtype=np.float64)
        arrays["monitor.usage_hist"] = np.array(self.monitor.baseline["usage_hist"], dtype=np.float64)
        base = self.monitor.baseline
        meta = {
            "codec": codec_meta,
            "monitor": {"distortion": float(base["distortion"]), "n": int(base["n"])},
        }
        return arrays, meta

    @classmethod
    def from_state(cls, sender: int, config: LinkConfig, arrays: Mapping[str, Any], meta: Mapping[str, Any]):
        book = cls(sender, config)
        arrays = {k: np.asarray(v, dtype=np.float64) for k, v in arrays.items()}
        codec_arrays = {k: v for k, v in arrays.items() if not k.startswith(("monitor.", "code_norms"))}
        book.codec = SemanticCodec.from_state(codec_arrays, meta["codec"])
        book.code_norms = arrays["code_norms"]
        book.monitor = CodebookDriftMonitor(book.codec, config.drift)
        book.monitor.baseline = {
            **meta["monitor"],
            "code_hist": arrays["monitor.code_hist"],
            "usage_hist": arrays["monitor.usage_hist"],
        }
        return book


class HcpLink:
    """Carries a team's message vectors through semantic compression; thread-safe.

    `names` (agent ids by sender index) label the storm alerts.
    """

    def __init__(self, config: LinkConfig | None = None, events: Any = None, names: list[str] | None = None):
        self.config = c = config or LinkConfig()
        self.events = events  # an EventStream (or None): alert and log events go there
        self.names = list(names) if names is not None else None
        self.books: dict[int, SenderCodebook] = {}
        self.scheduler = PriorityScheduler(ChannelConfig(link_bytes_per_ms=c.link_bytes_per_ms))
        self._lock = threading.RLock()
        self._ticks = 0
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
        """Whether every sender heard so far sends compressed messages."""
        return bool(self.books) and all(b.fitted for b in self.books.values())

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
            self.counts["messages"] += int(mask.sum())
            self.counts["raw_bytes"] += int(raw[mask].sum())
            self.counts["dense_bytes"] += 4 * d * int(mask.sum())
            for j in np.flatnonzero(mask.any(axis=0)):
                rows = np.flatnonzero(mask[:, j])
                out[rows, j] = self._send(int(j), x[rows, j], raw[rows, j], now)
        return out

    def _send(self, sender: int, x: np.ndarray, raw: np.ndarray, now: float) -> np.ndarray:
        book = self.books.setdefault(sender, SenderCodebook(sender, self.config))
        if not book.fitted:
            self._queue(sender, "regular", OVERHEAD_BYTES + int((2 + raw).sum()), now)  # TEXT frame
            if book.collect(x):
                self._sync(book, "fitted", now)
            return x
        frame, rec = book.send(x)
        self._queue(sender, "regular", len(frame), now)
        self.counts["semantic_bytes"] += len(frame)
        self.counts["semantic_raw_bytes"] += int(raw.sum())
        self.counts["compressed_messages"] += len(x)
        err = np.linalg.norm(rec - x, axis=1) / np.maximum(np.linalg.norm(x, axis=1), 1e-12)
        self._error[0] += float(err.sum())
        self._error[1] += len(err)
        alert, refitted = book.watch(x)
        if alert is not None:
            self.counts["storms"] += 1
            if self.events is not None:
                who = {"sender": sender, "agent": self.names[sender] if self.names else None}
                self.events.emit("alert", **{**alert, **who, "level": "warn", "source": "protocol"})
        if refitted:
            self.counts["refits"] += 1
            self._sync(book, "re-fitted after a communication storm", now)
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

    def _sync(self, book: SenderCodebook, what: str, now: float) -> None:
        """Ship a codebook to the receivers (background channel) and say so in the event log."""
        left = SYNC_BYTES_PER_VALUE * book.sync_values()
        while left > 0:
            chunk = min(left, SYNC_FRAME_BYTES)
            self._queue(book.sender, "background", OVERHEAD_BYTES + chunk, now)
            left -= chunk
        if self.events is not None:
            c = book.codec
            who = self.names[book.sender] if self.names else f"sender {book.sender}"
            self.events.emit(
                "log",
                message=f"HCP codebook of {who} {what}: {c.config.n_codes} codes, version {c.version}, "
                f"{c.config.bits_per_message} bits per message",
                source="protocol",
                codebook_version=c.version,
            )

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
        """Nested statistics (the runtime's `status()`): counters, codebooks, drift and channels."""
        with self._lock:
            s = self._summary()
            s["channels"] = {
                ch: {k: v for k, v in info.items() if k in ("delivered", "p50_ms", "p95_ms", "over_budget")}
                for ch, info in self.scheduler.stats().items()
                if isinstance(info, dict)
            }
            s["senders"] = {
                (self.names[j] if self.names else str(j)): {
                    "codes": b.codec.config.n_codes,
                    "version": b.codec.version,
                    "bits_per_message": b.codec.config.bits_per_message,
                    "drift": b.monitor.last.get("distortion_ratio"),
                }
                for j, b in sorted(self.books.items())
                if b.fitted
            }
        return s

    def _summary(self) -> dict[str, Any]:
        c = self.counts
        total = c["wire_bytes"] + c["sync_bytes"]
        latency = self.scheduler.latencies("regular")
        books = [b for b in self.books.values() if b.fitted]
        drifts = [b.monitor.last.get(k) for b in books for k in ("distortion_ratio",)]
        shifts = [b.monitor.last.get("psi") for b in books]
        return {
            **c,
            "fitted": int(self.fitted),
            "codebooks": len(books),
            "byte_ratio": total / c["raw_bytes"] if c["raw_bytes"] else None,
            "frame_byte_ratio": (
                c["semantic_bytes"] / c["semantic_raw_bytes"] if c["semantic_raw_bytes"] else None
            ),
            "compression_ratio": c["raw_bytes"] / total if total else None,
            "dense_ratio": total / c["dense_bytes"] if c["dense_bytes"] else None,
            "codebook_size": sum(b.codec.config.n_codes for b in books),
            "codebook_version": max((b.codec.version for b in books), default=0),
            "bits_per_message": (
                float(np.mean([b.codec.config.bits_per_message for b in books])) if books else None
            ),
            # the current window's error until `metrics()` closes it
            "reconstruction_error": self._error[0] / self._error[1] if self._error[1] else self.last_error,
            "drift": max((v for v in drifts if v is not None), default=None),
            "usage_shift": max((v for v in shifts if v is not None), default=None),
            "channel_p95_ms": float(np.percentile(latency, 95)) if len(latency) else None,
        }

    # ---- persistence -----------------------------------------------------------------------------
    def state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """(arrays, JSON metadata) of the fitted codebooks and the counters, for the checkpoint."""
        with self._lock:
            arrays: dict[str, np.ndarray] = {}
            senders: dict[str, Any] = {}
            for j, book in sorted(self.books.items()):
                if book.fitted:
                    part, senders[str(j)] = book.state()
                    arrays.update({f"{j}.{k}": v for k, v in part.items()})
            meta = {
                "config": asdict(self.config),
                "fitted": bool(senders),
                "senders": senders,
                "names": self.names,
                "counts": dict(self.counts),
            }
            return arrays, meta

    @classmethod
    def from_state(cls, arrays: Mapping[str, Any], meta: Mapping[str, Any], events: Any = None) -> HcpLink:
        """Rebuild a link saved by `state` (raises `CodecError` / ValueError naming what is wrong)."""
        link = cls(LinkConfig.from_dict(meta["config"]), events=events, names=meta.get("names"))
        link.counts.update({k: int(v) for k, v in meta.get("counts", {}).items()})
        for key, book_meta in meta.get("senders", {}).items():
            prefix = f"{key}."
            part = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
            link.books[int(key)] = SenderCodebook.from_state(int(key), link.config, part, book_meta)
        return link


def make_link(
    protocol: str | None, events: Any = None, names: list[str] | None = None, **overrides: Any
) -> HcpLink | None:
    """The link a spec's ``communication.protocol`` asks for: an `HcpLink` for "hcp", else None
    (None and "dense" send the vectors as they are)."""
    if protocol not in PROTOCOLS_WITH_LINK:
        return None
    return HcpLink(LinkConfig(**overrides), events=events, names=names)


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
