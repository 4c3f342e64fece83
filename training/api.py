"""The public entry points the CLI and the web layer call: train or evaluate a team spec.

Both write under `out_dir` (checkpoints in `out_dir/checkpoints/`), report through an `EventStream`,
read `should_stop()` at every update (cooperative cancel), and resume from the newest complete
checkpoint when `resume` is true, so a crashed worker's run continues where it left off.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agents.spec import TeamSpec, load_spec
from training import checkpoint as ckpt
from training.events import EventStream
from training.reinforce_comm import ReinforceCommTrainer, TrainingError, TrainResult

CHECKPOINTS = "checkpoints"


def _prepare(
    spec: str | Path | Mapping | TeamSpec, events: EventStream | None
) -> tuple[TeamSpec, EventStream]:
    return load_spec(spec, require_environment=True), events if events is not None else EventStream()


def _reinforce_trainer(
    spec: TeamSpec, out_dir: Path, resume: bool
) -> tuple[ReinforceCommTrainer, int | None]:
    trainer = ReinforceCommTrainer(spec)
    latest = ckpt.latest_checkpoint(out_dir / CHECKPOINTS) if resume else None
    resumed_from = int(trainer.load_checkpoint(latest)["episode"]) if latest is not None else None
    return trainer, resumed_from


def train(
    spec: str | Path | Mapping | TeamSpec,
    out_dir: str | Path,
    *,
    events: EventStream | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    resume: bool = True,
    progress: Callable[..., None] | None = None,
) -> TrainResult:
    """Train the team described by `spec`; returns how the run ended and its final metrics."""
    team, stream = _prepare(spec, events)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    algorithm = team.training.algorithm
    if algorithm != "reinforce_comm":
        raise TrainingError(
            f"training.algorithm {algorithm!r} runs through `training.mappo` (bench/workflows.py); "
            "the spec-driven entry point trains 'reinforce_comm' teams"
        )
    trainer, resumed_from = _reinforce_trainer(team, out, resume)
    return trainer.run(
        stream, should_stop, checkpoint_root=out / CHECKPOINTS, resumed_from=resumed_from, progress=progress
    )


def evaluate(
    spec: str | Path | Mapping | TeamSpec,
    out_dir: str | Path,
    *,
    events: EventStream | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    resume: bool = True,
    episodes: int | None = None,
) -> TrainResult:
    """Evaluate the newest checkpoint under `out_dir` (or the untrained team) greedily."""
    team, stream = _prepare(spec, events)
    out = Path(out_dir)
    trainer, resumed_from = _reinforce_trainer(team, out, resume)
    stream.emit("started", resumed_from=resumed_from, algorithm="evaluation", agents=trainer.agents)
    if should_stop():
        stream.emit("finished", status="cancelled", metrics={})
        return TrainResult("cancelled", trainer.episode, trainer.update_index, 0.0, {}, None)
    result = trainer.evaluate(episodes or team.training.eval_episodes)
    metrics: dict[str, Any] = {k: v for k, v in result.items() if isinstance(v, (int, float))}
    stream.emit(
        "metrics",
        step=trainer.update_index,
        episode=trainer.episode,
        **{f"eval_{k}": v for k, v in metrics.items()},
    )
    stream.emit(
        "attention", step=trainer.update_index, agents=trainer.agents, matrix=result["attention"], mode="eval"
    )
    stream.emit("finished", status="succeeded", metrics=metrics)
    return TrainResult("succeeded", trainer.episode, trainer.update_index, 0.0, metrics, None)
