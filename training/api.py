"""The public entry points the CLI and the web layer call: train or evaluate a team spec.

Both write under `out_dir` (checkpoints in `out_dir/checkpoints/`), report through an `EventStream`,
read `should_stop()` at every update (cooperative cancel), and resume from the newest complete
checkpoint when `resume` is true, so a crashed worker's run continues where it left off.

When no `events` stream is given, `train` writes every event to `out_dir/events.jsonl`, continuing
the sequence numbers already in that file (the CLI's metrics log). `evaluate_run(run_dir)` evaluates
a run directory on its own (the spec is stored in the checkpoint), optionally on held-out templates.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.spec import TeamSpec, load_spec
from agents.spec.algorithms import either, supports_data_parallel
from agents.spec.budget import with_episodes
from training import checkpoint as ckpt
from training import distributed
from training.algorithms import builder
from training.events import Event, EventSink, EventStream
from training.reinforce_comm import ReinforceCommTrainer
from training.trainer import Trainer, TrainingError, TrainResult

CHECKPOINTS = "checkpoints"
EVENTS_FILE = "events.jsonl"


class JsonlEventLog:
    """An event sink appending one JSON object per line to `path` (flushed per event)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)

    def __call__(self, event: Event) -> None:
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(event.to_dict()) + "\n")

    def last_seq(self) -> int:
        """The highest sequence number already in the file (0 when empty or absent)."""
        if not self.path.is_file():
            return 0
        last = 0
        with open(self.path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    last = max(last, int(json.loads(line)["seq"]))
                except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                    continue  # a line cut short by a crash: continue after the last good one
        return last


def _prepare(
    spec: str | Path | Mapping | TeamSpec, events: EventStream | None
) -> tuple[TeamSpec, EventStream]:
    return load_spec(spec, require_environment=True), events if events is not None else EventStream()


def train(
    spec: str | Path | Mapping | TeamSpec,
    out_dir: str | Path,
    *,
    events: EventStream | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    resume: bool = True,
    progress: Callable[..., None] | None = None,
    episodes: int | None = None,
    overrides: Mapping[str, Any] | None = None,
    backbone=None,
    human_feedback=None,
    group: distributed.Group | None = None,
    sinks: Sequence[EventSink] = (),
) -> TrainResult:
    """Train the team described by `spec`; returns how the run ended and its final metrics.

    `episodes` overrides `training.episodes`; `overrides` sets trainer hyper-parameters beyond the
    spec (training.reinforce_comm.ReinforceCommConfig); `backbone` reuses an already loaded one;
    `human_feedback` (a training.reward.HumanFeedbackSource) feeds the `human_feedback` reward term of
    MAPPO / IPPO teams, whose episodes are keyed "<out_dir name>/<episode number>". `sinks` hear every
    event beside `out_dir/events.jsonl` when no `events` stream is given (the CLI's progress bars).

    A spec asking for `resources.processes` > 1 is trained by that many data-parallel processes started
    with torch's elastic launcher (training.distributed.launch); their events arrive on this stream.
    `group` is set inside such a process (training.distributed_worker): rank 0 alone writes files.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    owns_stream = events is None
    if owns_stream:
        log = JsonlEventLog(out / EVENTS_FILE)
        events = EventStream([log, *sinks], start_seq=log.last_seq())
    team, stream = _prepare(spec, events)
    _check_resources(team)
    if group is None and team.resources.processes > 1:
        if overrides:
            raise TrainingError("trainer overrides do not reach a multi-process run; put them in the spec")
        return _train_launched(team, out, stream, should_stop, episodes, owns_stream, resume)
    group = group if group is not None else distributed.SINGLE
    if group.active and not supports_data_parallel(team.training.algorithm):
        raise TrainingError(
            f"data-parallel training (resources.processes > 1) runs {either('data_parallel')} teams only"
        )
    team = with_episodes(
        team, episodes
    )  # the run's budget is read from the spec alone (spec.json records it)
    build = builder(team.training.algorithm)  # the algorithm's registered builder (training.algorithms)
    trainer: Trainer | None = None
    try:
        # progress(...) after every update (the CLI's bars): (stats, info) for reinforce_comm, (update, metrics) for MAPPO
        trainer = build(
            team,
            out,
            events=stream,
            backbone=backbone,
            human_feedback=human_feedback,
            group=group,
            overrides=overrides,
        )
        resumed_from = trainer.resume(out / CHECKPOINTS if resume else None)
        if group.is_main:
            (out / "spec.json").write_text(json.dumps(team.to_dict(), indent=1))
        result = trainer.run(
            stream,
            should_stop,
            checkpoint_root=out / CHECKPOINTS if group.is_main else None,
            resumed_from=resumed_from,
            progress=progress,
        )
    except Exception as exc:
        if not owns_stream:  # the caller's stream: the caller reports the failure (the web layer does)
            raise
        stream.emit("error", message=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc(limit=6))
        episode = trainer.episode if trainer is not None else 0
        stream.emit("finished", status="failed", metrics={}, episode=episode)
        raise
    if group.is_main:
        (out / "result.json").write_text(json.dumps(asdict(result), indent=1))
    return result


def _check_resources(team: TeamSpec) -> None:
    """Refuse a run this worker cannot host: more GPUs asked for (resources.devices) than it has."""
    wanted = team.resources.devices
    if wanted:
        import torch

        present = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if present < wanted:
            raise TrainingError(
                f"the spec asks for {wanted} GPU(s) (resources.devices) but this worker has {present}: "
                "send the run to the gpu queue of a worker with enough GPUs"
            )


def _train_launched(
    team: TeamSpec, out: Path, stream: EventStream, should_stop, episodes, owns_stream, resume=True
) -> TrainResult:
    """`resources.processes` ranks through torch.distributed.run; rank 0's events re-emitted on `stream`
    (numbered in its sequence, so the run's events stay one continuous sequence across restarts)."""
    import os

    def relay(event: dict) -> None:
        stream.emit(event["type"], **event.get("payload", {}))

    try:
        result = distributed.launch(
            team.to_dict(),
            out,
            team.resources.processes,
            on_event=relay,
            should_stop=should_stop,
            episodes=episodes,
            max_restarts=int(os.environ.get("MASE_DIST_MAX_RESTARTS", "3")),
            resume=resume,
        )
    except Exception as exc:
        if owns_stream:
            stream.emit("error", message=f"{type(exc).__name__}: {exc}")
            stream.emit("finished", status="failed", metrics={})
        raise
    return TrainResult(**result)


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
    trainer = ReinforceCommTrainer(team)
    resumed_from = trainer.resume(out / CHECKPOINTS if resume else None)
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


# Trainer settings that shape the networks or the routing: a run is evaluated with the ones it trained with.
_ARCHITECTURE_SETTINGS = (
    "hidden",
    "d_msg",
    "d_k",
    "routing",
    "delivery_threshold",
    "baseline",
    "train_adapters",
)


def evaluate_run(
    run_dir: str | Path,
    episodes: int = 1000,
    *,
    templates: str | None = None,
    checkpoint: str | Path | None = None,
    backbone=None,
    seed: int | None = None,
) -> dict[str, Any]:
    """Greedy metrics of a trained run on `episodes` fresh episodes (no event stream needed).

    `templates` ("train" | "heldout" | "all") evaluates on another paraphrase split when the
    environment has one (number_guess); `checkpoint` picks a checkpoint other than the newest.
    """
    run = Path(run_dir)
    if checkpoint is None:
        if not run.is_dir():
            raise ckpt.CheckpointError(f"run directory {run} does not exist")
        checkpoint = ckpt.latest_checkpoint(run / CHECKPOINTS)
        if checkpoint is None:
            raise ckpt.CheckpointError(
                f"{run} has no checkpoint yet; train first (mase train SPEC --out {run})"
            )
    checkpoint = Path(checkpoint)
    state = ckpt.read_state(checkpoint)
    team = load_spec(state["spec"] if state.get("spec") else run / "spec.json", require_environment=True)
    settings = {k: v for k, v in (state.get("config") or {}).items() if k in _ARCHITECTURE_SETTINGS}
    trainer = ReinforceCommTrainer(team, backbone=backbone, **settings)
    trainer.load_checkpoint(checkpoint)
    env = None
    if templates is not None:
        from agents.envs import make_env, team_kwargs

        params = {**dict(team.environment.params), "templates": templates}
        env = make_env(
            team.environment.name, params, **team_kwargs(team.environment.name, team.agents, team.edges)
        )
    result = trainer.evaluate(episodes, env=env, seed=seed)
    result["checkpoint"] = str(checkpoint)
    result["templates"] = templates or dict(team.environment.params).get("templates", "train")
    return result
