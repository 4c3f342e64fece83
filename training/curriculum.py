"""Adaptive curriculum: task difficulty follows the team's recent success rate (docs/design.md#curriculum).

After every `window` episodes at one level the curriculum looks at the success rate: above `upper` the
difficulty rises one level, below `lower` it falls one level, otherwise it stays. The window restarts on
every move so that a decision is never based on episodes played at another level.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from training.events import EventStream


@dataclass
class CurriculumConfig:
    """Bounds on the success rate and on the difficulty level."""

    upper: float = 0.8
    lower: float = 0.4
    min_level: int = 0
    max_level: int = 3
    window: int = 20

    def __post_init__(self) -> None:
        if not 0 <= self.lower < self.upper <= 1:
            raise ValueError(
                f"curriculum: need 0 <= lower < upper <= 1, got lower={self.lower} upper={self.upper}"
            )
        if self.min_level > self.max_level:
            raise ValueError(f"curriculum: min_level {self.min_level} exceeds max_level {self.max_level}")
        if self.window < 1:
            raise ValueError(f"curriculum: window must be >= 1, got {self.window}")


class AdaptiveCurriculum:
    """Keeps the current difficulty level and moves it with the success rate."""

    def __init__(self, config: CurriculumConfig | None = None, events: EventStream | None = None, level=None):
        self.config = config or CurriculumConfig()
        self.level = self.config.min_level if level is None else int(level)
        self.events = events
        self._recent: deque[bool] = deque(maxlen=self.config.window)
        self.moves: list[tuple[int, int, float]] = []  # (from, to, success rate)

    @classmethod
    def from_spec(
        cls, curriculum: Any, window: int = 20, events: EventStream | None = None
    ) -> AdaptiveCurriculum:
        """Build from a TeamSpec's `curriculum` section."""
        c = curriculum
        return cls(CurriculumConfig(c.upper, c.lower, c.min_level, c.max_level, window), events=events)

    @property
    def success_rate(self) -> float | None:
        """Success rate over the episodes played at the current level (None before any)."""
        return sum(self._recent) / len(self._recent) if self._recent else None

    def record(self, success: bool) -> int | None:
        """Record one episode's outcome; returns the new level when the difficulty moved, else None."""
        self._recent.append(bool(success))
        if len(self._recent) < self.config.window:
            return None
        rate = self.success_rate
        new = self.level
        if rate > self.config.upper and self.level < self.config.max_level:
            new = self.level + 1
        elif rate < self.config.lower and self.level > self.config.min_level:
            new = self.level - 1
        if new == self.level:
            return None
        self.moves.append((self.level, new, rate))
        if self.events is not None:
            direction = "up" if new > self.level else "down"
            self.events.emit(
                "log",
                message=f"curriculum: difficulty {direction} {self.level} -> {new} (success {rate:.0%})",
                curriculum={"from": self.level, "to": new, "success_rate": rate},
            )
        self.level = new
        self._recent.clear()
        return new

    def state_dict(self) -> dict[str, Any]:
        return {"level": self.level, "recent": list(self._recent), "moves": [list(m) for m in self.moves]}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.level = int(state["level"])
        self._recent = deque((bool(x) for x in state["recent"]), maxlen=self.config.window)
        self.moves = [(int(a), int(b), float(r)) for a, b, r in state.get("moves", [])]
