"""Golden-range metrics (docs/design.md#golden-ranges): healthy ranges for a self-evolving team, with alert thresholds.

| metric                      | golden range    | alert when          |
|-----------------------------|-----------------|---------------------|
| inter_agent_latency_ms      | < 200 ms        | > 500 ms            |
| policy_update_interval_h    | 2–4 h           | < 30 min (0.5 h)    |
| replay_buffer_size          | 100k–500k       | < 50k samples       |
| phase_duration_h            | 12–36 h         | < 6 h               |
| agent_diversity_index       | 0.6–0.8         | < 0.4               |

Each observation gets a level: "ok" inside the golden range, "warn" outside it but not past the alert
threshold, "alert" past it.

Scaling to the run's own clock. The golden durations are for a production system that evolves over days;
a training run here lasts minutes. `clock_scale` says how many table seconds one second of the run stands
for: durations measured on the run's clock are multiplied by it before they are compared with the golden
hours. The default, 3600, reads one run second as one hour of the table, so a policy update every 2–4 s and a
phase of 12–36 s are "golden". `sample_scale` does the same for the replay buffer size (default 1: the
table's absolute sample counts). Latency and diversity are never scaled.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from training.events import EventStream

LEVELS = ("ok", "warn", "alert")


@dataclass(frozen=True)
class GoldenRange:
    """A metric's golden interval [low, high] and its alert thresholds (None = no alert on that side)."""

    name: str
    unit: str
    low: float
    high: float
    alert_below: float | None = None
    alert_above: float | None = None
    kind: str = "plain"  # "duration": measured in run seconds, scaled; "count": scaled by sample_scale

    def level(self, value: float) -> str:
        """ok / warn / alert for a value already in the range's unit."""
        if (self.alert_below is not None and value < self.alert_below) or (
            self.alert_above is not None and value > self.alert_above
        ):
            return "alert"
        if self.low <= value <= self.high:
            return "ok"
        return "warn"


GOLDEN_RANGES: dict[str, GoldenRange] = {
    r.name: r
    for r in (
        GoldenRange("inter_agent_latency_ms", "ms", 0.0, 200.0, alert_above=500.0),
        GoldenRange("policy_update_interval_h", "h", 2.0, 4.0, alert_below=0.5, kind="duration"),
        GoldenRange("replay_buffer_size", "samples", 100_000, 500_000, alert_below=50_000, kind="count"),
        GoldenRange("phase_duration_h", "h", 12.0, 36.0, alert_below=6.0, kind="duration"),
        GoldenRange("agent_diversity_index", "", 0.6, 0.8, alert_below=0.4),
    )
}


def diversity_index(vectors: Sequence[Sequence[float]]) -> float:
    """Agent diversity: mean pairwise cosine distance (1 − cos) between agents' behaviour vectors, in [0, 1].

    A behaviour vector is anything that describes an agent's policy on common ground — here, its action
    distribution on a shared set of probe observations, or its trainable parameters flattened. Identical
    agents give 0; orthogonal ones give 1 (negative cosines are clipped to 1).
    """
    vecs = [list(map(float, v)) for v in vectors]
    if len(vecs) < 2:
        return 0.0
    dists = []
    for a, b in itertools.combinations(vecs, 2):
        na = math.sqrt(sum(x * x for x in a))
        nb = math.sqrt(sum(x * x for x in b))
        cos = sum(x * y for x, y in zip(a, b, strict=True)) / (na * nb) if na and nb else 0.0
        dists.append(min(1.0, max(0.0, 1.0 - cos)))
    return sum(dists) / len(dists)


class GoldenMetrics:
    """Turns raw run measurements into golden-range readings and reports them as events.

    `observe(name, raw)` takes the raw measurement (milliseconds for latency, run seconds for durations,
    a sample count for the buffer, an index for diversity), converts it, and returns the reading. The
    reading goes into the next "metrics" event (`report`); an "alert" event is emitted whenever a metric
    enters the warn or alert level, or leaves it.
    """

    def __init__(
        self,
        events: EventStream | None = None,
        clock_scale: float = 3600.0,
        sample_scale: float = 1.0,
        ranges: Mapping[str, GoldenRange] | None = None,
    ):
        if clock_scale <= 0 or sample_scale <= 0:
            raise ValueError("golden metrics: clock_scale and sample_scale must be positive")
        self.events = events
        self.clock_scale = float(clock_scale)
        self.sample_scale = float(sample_scale)
        self.ranges = dict(ranges or GOLDEN_RANGES)
        self.latest: dict[str, dict[str, Any]] = {}
        self._levels: dict[str, str] = {}

    def convert(self, name: str, raw: float) -> float:
        """Raw measurement → the table's unit (hours for durations, scaled counts)."""
        r = self.ranges[name]
        if r.kind == "duration":
            return float(raw) * self.clock_scale / 3600.0
        if r.kind == "count":
            return float(raw) * self.sample_scale
        return float(raw)

    def observe(self, name: str, raw: float, step: int | None = None) -> dict[str, Any]:
        """Record one measurement; returns {"value", "raw", "level", "low", "high", "alert_below", ...}."""
        if name not in self.ranges:
            raise ValueError(f"unknown golden metric {name!r}; use one of {sorted(self.ranges)}")
        r = self.ranges[name]
        value = self.convert(name, raw)
        level = r.level(value)
        reading = {
            "value": value,
            "raw": float(raw),
            "unit": r.unit,
            "level": level,
            "low": r.low,
            "high": r.high,
            "alert_below": r.alert_below,
            "alert_above": r.alert_above,
        }
        self.latest[name] = reading
        previous = self._levels.get(name, "ok")
        self._levels[name] = level
        if self.events is not None and level != previous:
            self.events.emit(
                "alert",
                name=name,
                level=level,
                previous=previous,
                value=value,
                unit=r.unit,
                golden=[r.low, r.high],
                alert_below=r.alert_below,
                alert_above=r.alert_above,
                step=step,
                source="golden_range",
            )
        return reading

    def report(self, step: int, episode: int) -> dict[str, Any]:
        """Emit the latest readings as one "metrics" event (`golden.<name>` values and `golden_levels`)."""
        payload: dict[str, Any] = {f"golden.{n}": r["value"] for n, r in self.latest.items()}
        payload["golden_levels"] = {n: r["level"] for n, r in self.latest.items()}
        if self.events is not None and self.latest:
            self.events.emit("metrics", step=step, episode=episode, **payload)
        return payload

    def alerts(self) -> dict[str, str]:
        """Metrics whose latest reading is not ok, with their level."""
        return {n: r["level"] for n, r in self.latest.items() if r["level"] != "ok"}
