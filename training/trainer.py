"""One interface for every algorithm's trainer: what `training.api.train` needs of it.

A trainer is built from a team spec by its algorithm's module (`training.reinforce_comm`,
`training.mappo`); `training.api` then drives every one the same way:

    resumed_from = trainer.resume(out_dir / "checkpoints")    # None: nothing to resume from
    result = trainer.run(events, should_stop, checkpoint_root=out_dir / "checkpoints",
                         resumed_from=resumed_from, progress=progress, episodes=episodes)

`run` reports through the `EventStream` ("started", "metrics", "checkpoint", "finished", …; each
algorithm's own payloads) and returns a `TrainResult`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from training.events import EventStream


class TrainingError(ValueError):
    """A run that cannot start as specified (environment without the fast path, bad settings…)."""


@dataclass
class TrainResult:
    """How a training run ended: what `Trainer.run` (and `training.api.train`) returns."""

    status: str  # "succeeded" | "cancelled"
    episodes: int
    updates: int
    seconds: float
    metrics: dict[str, float] = field(default_factory=dict)
    checkpoint: str | None = None


@runtime_checkable
class Trainer(Protocol):
    """A team's trainer, whatever its algorithm."""

    agents: list[str]
    episode: int  # episodes played so far (a failed run's "finished" event names it)

    def resume(self, checkpoints: Path | None) -> int | None:
        """Continue from the newest checkpoint under `checkpoints` (None: start afresh); returns the
        episode it resumes from, or None when there is none."""
        ...

    def run(
        self,
        events: EventStream,
        should_stop: Callable[[], bool] = ...,
        checkpoint_root: Path | None = None,
        episodes: int | None = None,
        resumed_from: int | None = None,
        progress: Callable[..., None] | None = None,
    ) -> TrainResult:
        """Train for `episodes` (default: the spec's budget), reading `should_stop()` before every
        update and checkpointing under `checkpoint_root` (None: no checkpoints)."""
        ...
