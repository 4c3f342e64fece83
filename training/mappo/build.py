"""A MAPPO / IPPO team spec to its `MappoTrainer`, which is the run's `training.trainer.Trainer`:
`build_trainer` is what training.algorithms registers for "mappo" and "ippo", and `run_spec` trains a spec
in one call (build, resume, run) for scripts and tests.

The trainer is built with the run's event stream (its reward schedule, curriculum and golden metrics
report on it) and with the run's lifecycle as `MappoTeam` hooks: a fresh run starts from the spec's warm
start, the attention views follow the updates, and rank 0 calibrates the checkpoints before "finished".
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.backbone import Backbone
from agents.envs import env_class
from agents.spec.algorithms import either, is_ppo
from training import distributed
from training.events import EventStream
from training.mappo.attention import attention_reporter
from training.mappo.from_spec import calibrate_run, config_from_spec, team_trainer
from training.mappo.teacher_clone import clone_teacher
from training.mappo.trainer import MappoTrainer
from training.mappo.vector_features import is_vector_env
from training.offline import warm_start_from_spec
from training.trainer import TrainingError

__all__ = ["build_trainer", "run_spec"]

CHECKPOINTS = "checkpoints"  # under the run's directory, as training.api names it


def build_trainer(
    team: Any,
    out_dir: str | Path,
    *,
    events: EventStream | None = None,
    backbone: Any = None,
    human_feedback: Any = None,
    group: distributed.Group | None = None,
    overrides: dict[str, Any] | None = None,
) -> MappoTrainer:
    """The `MappoTrainer` of a team spec whose `training.algorithm` is "mappo" or "ippo", reporting on
    `events`; its checkpoints go to `out_dir/checkpoints/mappo/{last,best}`. MappoConfig takes no
    overrides beyond the spec: a run asked for some is refused rather than trained without them."""
    if not is_ppo(team.training.algorithm):
        raise ValueError(f"MAPPO trains {either('ppo', quoted=True)} teams, not {team.training.algorithm!r}")
    if overrides:
        raise TrainingError(
            f"trainer overrides ({', '.join(overrides)}) reach reinforce_comm only; put MAPPO settings in the spec"
        )
    events = events if events is not None else EventStream()
    group = group if group is not None else distributed.SINGLE
    cfg = config_from_spec(team, group)
    env_name = team.environment.name
    # loading the backbone and building the team (its first observations embedded) take a while on a CPU
    with events.stage("preparing", "Loading the backbone and building the team", 2, "steps") as preparing:
        if backbone is None and not is_vector_env(env_name):  # vector observations need no backbone
            b = team.backbone
            backbone = Backbone.load(b.model, pooling=b.pooling, max_length=b.max_length)
        preparing.advance()
        trainer = team_trainer(team, cfg, backbone, events, human_feedback, group)
        preparing.advance()
    agent_ids = [a.id for a in team.agents]
    members = getattr(env_class(env_name), "member_ids", None)  # a team drawn by groups (large_team)
    if members is not None:
        agent_ids = list(members(dict(team.environment.params)))
    if trainer.agents != agent_ids:
        raise ValueError(
            f"the spec's agents {agent_ids} differ from environment {env_name!r}'s {trainer.agents}"
        )
    trainer.episode_prefix = f"{Path(out_dir).name}/"  # human feedback is keyed "<run dir>/<episode number>"
    trainer.team.fresh_start = _warm_start(team, Path(out_dir), events, group)
    if cfg.comm and group.is_main:  # who listens to whom, for the communication views and the overlay
        trainer.team.watch = lambda t, progress: attention_reporter(
            t, events, cfg.eval_every, cfg.updates, progress
        )
    trainer.team.before_finish = _calibration(team, Path(out_dir) / CHECKPOINTS / "mappo", events, group)
    return trainer


def _warm_start(
    team: Any, out: Path, events: EventStream, group: distributed.Group
) -> Callable[[MappoTrainer], None]:
    """A fresh run's start: the spec's warm start, then the teacher's clone (`teacher_clone`; rank 0 logs
    them under the run; another rank runs the warm start in a scratch directory, which also fills its text
    cache, and then takes rank 0's networks)."""

    def start(trainer: MappoTrainer) -> None:
        if group.is_main:
            warm_start_from_spec(trainer, team, out / "warm_start", events)
            clone_teacher(trainer, trainer.cfg.teacher_clone_episodes, trainer.cfg.seed, events)
            return
        with tempfile.TemporaryDirectory(prefix="mase-warm-start-") as scratch:
            warm_start_from_spec(trainer, team, Path(scratch), None)

    return start


def _calibration(
    team: Any, root: Path, events: EventStream, group: distributed.Group
) -> Callable[[MappoTrainer, str], dict[str, float]]:
    """Confidence the breaker can trust (training.mappo.calibration), fitted by rank 0 alone before the
    run's "finished" event: its progress is the run's, and its error joins the final metrics."""

    def calibrate(trainer: MappoTrainer, status: str) -> dict[str, float]:
        if status != "succeeded" or not group.is_main:
            return {}
        found = calibrate_run(trainer, team, root, events)
        return {} if found is None else {"calibration_error": found["ece_after"]}  # dev split, after fitting

    return calibrate


def run_spec(
    team: Any,
    out_dir: str | Path,
    events: EventStream | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    resume: bool = True,
    progress: Callable[[int, dict], None] | None = None,
    backbone: Any | None = None,
    human_feedback: Any | None = None,
    group: distributed.Group = distributed.SINGLE,
) -> dict[str, Any]:
    """Train a TeamSpec whose `training.algorithm` is "mappo" or "ippo" into `out_dir` in one call
    (`build_trainer`, then the Trainer's `resume` and `run`), resuming from `checkpoints/mappo/last` when
    `resume` is true. Returns the loop's record: {"status", "metrics", "train_seconds"}."""
    trainer = build_trainer(
        team, out_dir, events=events, backbone=backbone, human_feedback=human_feedback, group=group
    )
    checkpoints = Path(out_dir) / CHECKPOINTS
    trainer.resume(checkpoints if resume else None)
    trainer.run(trainer.events, should_stop, checkpoints if group.is_main else None, progress=progress)
    return trainer.outcome
