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

from training.event_payloads import PAYLOADS

EVENT_TYPES = frozenset(PAYLOADS)
"""The event types every consumer understands; each one's payload is declared in `training.event_payloads`."""

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
        # delivery order must stay one sequence. Re-entrant: the progress ticker holds it while it
        # reports, so a stage that ends meanwhile is never reported as running after its end.
        self._lock = threading.RLock()
        self._stages: list[RunStage] = []  # the stages under way, outermost first (`stage`)
        self._ticker: threading.Thread | None = None
        self._last_progress = 0.0  # monotonic time of the last "progress" event

    def stage(self, phase: str, label: str, total: int, unit: str, start: int = 0) -> RunStage:
        """A stage of the run reporting its progress on this stream (use it as a context manager);
        `start` units are done already (a resumed run)."""
        return RunStage(self, phase, label, total, unit, start)

    def _tick(self) -> None:
        """The ticker: repeats the innermost stage's progress while its work is silent; it ends when no
        stage is under way (the next stage starts another)."""
        while True:
            time.sleep(PROGRESS_EVERY_S / 4)
            with self._lock:
                if not self._stages:
                    self._ticker = None
                    return
                if time.monotonic() - self._last_progress >= PROGRESS_EVERY_S:
                    self._stages[-1].report(force=True)

    def add_sink(self, sink: EventSink) -> None:
        self._sinks.append(sink)

    def emit(self, type: str, **payload: Any) -> Event:
        if type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {type!r}; expected one of {sorted(EVENT_TYPES)}")
        clean = _jsonable(payload)
        with self._lock:
            if type == "progress":
                self._last_progress = time.monotonic()
            self.last_seq += 1
            event = Event(seq=self.last_seq, type=type, payload=clean)
            for sink in self._sinks:
                sink(event)
        return event


PROGRESS_EVERY_S = 1.0
"""The most often a stage reports its progress; a stage whose work comes in longer steps (one backbone
batch, one update) is re-reported at this period by the stream's ticker, so a run is never silent."""


def stage(
    events: EventStream | None, phase: str, label: str, total: int, unit: str, start: int = 0
) -> RunStage:
    """`events.stage(...)`, or a stage nobody hears when there is no stream (library calls without one)."""
    return (events if events is not None else EventStream()).stage(phase, label, total, unit, start)


class RunStage:
    """One stage of a run (reader fitting, cloning, PPO, evaluation, calibration…) and its progress.

    Entered, it emits a "progress" event (``done``: `start`) and, left, one with ``state`` "done" (or
    "stopped" when it ends early); in between `advance` reports at most every `PROGRESS_EVERY_S` seconds.
    While it is the innermost stage under way, the stream's ticker repeats its last progress (elapsed
    and remaining time refreshed) whenever nothing was reported for `PROGRESS_EVERY_S`. The time left,
    ``eta_s``, extrapolates the rate since this process finished its first unit of the stage: the first
    unit's time holds the start-up (loading, caches filling, a first update far slower than the next), so
    a rate that counted it would promise many times the real wait. ``eta_s`` is None until one more unit is
    done after the first; then (now − t₁) · (total − done) / (done − done₁).
    """

    def __init__(self, stream: EventStream, phase: str, label: str, total: int, unit: str, start: int = 0):
        self.stream, self.phase, self.label, self.unit = stream, phase, label, unit
        self.total = max(0, int(total))
        self.start = self.done = min(self.total, max(0, int(start)))
        self._started = time.monotonic()
        self._last = 0.0
        self._first: tuple[float, int] | None = None  # (when, done) at the end of this process's first unit

    def __enter__(self) -> RunStage:
        self._started = time.monotonic()
        with self.stream._lock:
            self.stream._stages.append(self)
            if self.stream._ticker is None:
                self.stream._ticker = threading.Thread(
                    target=self.stream._tick, name="run-progress", daemon=True
                )
                self.stream._ticker.start()
        self.report(force=True)
        return self

    def __exit__(self, exc_type, *_exc) -> None:
        with self.stream._lock:
            if self in self.stream._stages:
                self.stream._stages.remove(self)
        finished = exc_type is None and self.done >= self.total
        self.report(force=True, state="done" if finished else "stopped")

    def advance(self, by: int = 1) -> None:
        """Count `by` more units done (never past the total) and report when it is time to."""
        self.done = min(self.total, self.done + int(by))
        if self._first is None and self.done > self.start:
            self._first = (time.monotonic(), self.done)
        self.report()

    def advance_to(self, done: int) -> None:
        """Set the units done (it never goes back) and report when it is time to."""
        self.advance(max(0, int(done) - self.done))

    def payload(self, state: str = "running") -> dict[str, Any]:
        now = time.monotonic()
        elapsed = now - self._started
        left = self.total - self.done
        since, gained = (now - self._first[0], self.done - self._first[1]) if self._first else (0.0, 0)
        eta = 0.0 if left <= 0 else since * left / gained if gained > 0 else None
        return {
            "phase": self.phase,
            "label": self.label,
            "done": self.done,
            "total": self.total,
            "unit": self.unit,
            "elapsed_s": round(elapsed, 2),
            "eta_s": None if eta is None else round(eta, 1),
            "state": state,
        }

    def report(self, force: bool = False, state: str = "running") -> None:
        now = time.monotonic()
        if force or now - self._last >= PROGRESS_EVERY_S:
            self._last = now
            self.stream.emit("progress", **self.payload(state))
