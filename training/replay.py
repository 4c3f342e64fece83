"""Dual experience replay (docs/design.md#dual-replay): a recent buffer and an elite, prioritised buffer.

- `RecentBuffer`: the last `capacity` samples, first in first out; sampled uniformly. It breaks the
  correlation between consecutive samples.
- `EliteBuffer`: the `capacity` samples with the highest priority seen so far (e.g. an episode's
  return); sampled with probability ∝ (priority − min + ε)^α, as in prioritised replay, so the best
  experience is replayed most.
- `DualReplay` holds both, samples a configurable share from each, and reports its size against the
  golden range (docs/design.md#golden-ranges: 100k–500k samples, alert below 50k; thresholds are parameters).
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


class RecentBuffer:
    """The most recent `capacity` samples."""

    def __init__(self, capacity: int):
        if capacity < 1:
            raise ValueError(f"replay: recent capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self._items: deque[Any] = deque(maxlen=capacity)

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def add(self, sample: Any) -> None:
        """Append a sample, dropping the oldest when full."""
        self._items.append(sample)

    def sample(self, n: int, rng: random.Random) -> list[Any]:
        """`n` samples drawn uniformly with replacement (empty list when the buffer is empty)."""
        if not self._items:
            return []
        return [self._items[rng.randrange(len(self._items))] for _ in range(n)]


class EliteBuffer:
    """The `capacity` highest-priority samples, replayed in proportion to their priority."""

    def __init__(self, capacity: int, alpha: float = 1.0, eps: float = 1e-3):
        if capacity < 1:
            raise ValueError(f"replay: elite capacity must be >= 1, got {capacity}")
        self.capacity = capacity
        self.alpha = alpha
        self.eps = eps
        self._heap: list[tuple[float, int, Any]] = []  # min-heap on priority: the worst elite is at [0]
        self._counter = itertools.count()

    def __len__(self) -> int:
        return len(self._heap)

    def __iter__(self) -> Iterator[Any]:
        return (item for _, _, item in self._heap)

    @property
    def min_priority(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def add(self, sample: Any, priority: float) -> bool:
        """Keep the sample if it ranks among the best `capacity`; returns whether it was kept."""
        entry = (float(priority), next(self._counter), sample)
        if len(self._heap) < self.capacity:
            heapq.heappush(self._heap, entry)
            return True
        if entry[0] > self._heap[0][0]:
            heapq.heapreplace(self._heap, entry)
            return True
        return False

    def sample(self, n: int, rng: random.Random) -> list[Any]:
        """`n` samples with probability ∝ (priority − min + eps)^alpha, with replacement."""
        if not self._heap:
            return []
        low = self._heap[0][0]
        weights = [(p - low + self.eps) ** self.alpha for p, _, _ in self._heap]
        picks = rng.choices(range(len(self._heap)), weights=weights, k=n)
        return [self._heap[i][2] for i in picks]


@dataclass
class ReplayConfig:
    """Sizes, the share of a batch drawn from the elite buffer, and the size alert thresholds."""

    recent_capacity: int = 500_000
    elite_capacity: int = 50_000
    elite_share: float = 0.5
    alpha: float = 1.0
    golden_low: int = 100_000  # golden range: 100k–500k samples
    golden_high: int = 500_000
    alert_below: int = 50_000  # golden range: alert under 50k samples

    def __post_init__(self) -> None:
        if not 0.0 <= self.elite_share <= 1.0:
            raise ValueError(f"replay: elite_share must be in [0, 1], got {self.elite_share}")


class DualReplay:
    """A recent buffer and an elite buffer behind one `add`/`sample` interface."""

    def __init__(self, config: ReplayConfig | None = None, seed: int = 0):
        self.config = config or ReplayConfig()
        self.recent = RecentBuffer(self.config.recent_capacity)
        self.elite = EliteBuffer(self.config.elite_capacity, alpha=self.config.alpha)
        self.rng = random.Random(seed)
        self.added = 0

    def __len__(self) -> int:
        """Distinct samples held (the recent buffer; elites are usually also recent)."""
        return len(self.recent)

    def add(self, sample: Any, priority: float) -> None:
        """Store a sample in the recent buffer and offer it to the elite buffer with its priority."""
        self.recent.add(sample)
        self.elite.add(sample, priority)
        self.added += 1

    def sample(self, n: int, elite_share: float | None = None) -> list[Any]:
        """`n` samples: round(n·elite_share) from the elite buffer, the rest from the recent one."""
        share = self.config.elite_share if elite_share is None else elite_share
        n_elite = round(n * share) if len(self.elite) else 0
        return self.elite.sample(n_elite, self.rng) + self.recent.sample(n - n_elite, self.rng)

    def health(self) -> dict[str, Any]:
        """Size against the configured golden range: level ok / warn / alert."""
        size = len(self)
        c = self.config
        if size < c.alert_below:
            level = "alert"
        elif c.golden_low <= size <= c.golden_high:
            level = "ok"
        else:
            level = "warn"
        return {
            "size": size,
            "elite_size": len(self.elite),
            "level": level,
            "golden": [c.golden_low, c.golden_high],
            "alert_below": c.alert_below,
        }
