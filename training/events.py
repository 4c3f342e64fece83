"""The one typed event interface through which training reports progress.

Every trainer emits `Event`s through an `EventStream`. Each event carries a sequence number that
increases by one per event within a run, so a consumer (the CLI's JSONL writer, the web layer's
database and WebSocket fan-out) can resume after the last number it saw and detect gaps.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

# The event types every consumer understands. Payload keys per type are documented in README.md.
EVENT_TYPES = frozenset(
    {
        "started",  # run began or resumed: {"resumed_from": step | None, ...}
        "metrics",  # scalar metrics: {"step": int, "episode": int, <name>: float, ...}
        "attention",  # communication attention: {"step": int, "agents": [...], "matrix": [[...]]}
        "phase",  # evolution phase change: {"from": str, "to": str, "reason": str}
        "plateau",  # plateau rule fired: {"cycles": int, "recommendation": str}
        "checkpoint",  # checkpoint written: {"step": int, "path": str, "metrics": {...}}
        "alert",  # golden-range / breaker / health alert: {"name": str, "level": str, ...}
        "log",  # human-readable progress line: {"message": str}
        "error",  # an error the run reports before failing: {"message": str}
        "finished",  # run ended: {"status": "succeeded" | "failed" | "cancelled", "metrics": {...}}
    }
)

EventSink = Callable[["Event"], None]


@dataclass(frozen=True)
class Event:
    """One thing that happened in a run."""

    seq: int
    type: str
    payload: dict[str, Any]
    time: float = field(default_factory=time.time)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _jsonable(value: Any) -> Any:
    """Turn tensors/arrays/NaN into plain JSON values so every sink can serialise the payload."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


class EventStream:
    """Numbers events and hands them to every sink, in order.

    `start_seq` is the last sequence number already delivered (0 for a new run), so a resumed run
    continues the numbering with no gap and no duplicate.
    """

    def __init__(self, sinks: Iterable[EventSink] = (), start_seq: int = 0):
        self._sinks = list(sinks)
        self.last_seq = start_seq
        # A trainer and a helper thread (e.g. system metrics) may emit at once; numbering and
        # delivery order must stay one sequence.
        self._lock = threading.Lock()

    def add_sink(self, sink: EventSink) -> None:
        self._sinks.append(sink)

    def emit(self, type: str, **payload: Any) -> Event:
        if type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {type!r}; expected one of {sorted(EVENT_TYPES)}")
        clean = _jsonable(payload)
        with self._lock:
            self.last_seq += 1
            event = Event(seq=self.last_seq, type=type, payload=clean)
            for sink in self._sinks:
                sink(event)
        return event
