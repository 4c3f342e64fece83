"""A MAPPO / IPPO team spec behind the one trainer interface (`training.trainer.Trainer`); `build_trainer`
is what training.algorithms registers for "mappo" and "ippo".

`run_spec` builds the `MappoTrainer` and trains it in one call: the reward, schedule, curriculum and warm
start it wires report on the run's event stream, which only `run` receives. So `resume` only notes
whether to continue from the run's `checkpoints/mappo/last`, and `run` does the work.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from training import distributed
from training.events import EventStream
from training.mappo.from_spec import run_spec
from training.trainer import TrainingError, TrainResult


class MappoSpecTrainer:
    """Trains `spec` (algorithm "mappo" or "ippo") into `out_dir` through `run_spec`."""

    def __init__(
        self,
        spec: Any,
        out_dir: str | Path,
        *,
        backbone: Any = None,
        human_feedback: Any = None,
        group: distributed.Group | None = None,
    ) -> None:
        self.spec = spec
        self.out_dir = Path(out_dir)
        self.backbone = backbone
        self.human_feedback = human_feedback  # feeds the `human_feedback` reward term
        self.agents = [a.id for a in spec.agents]
        # data-parallel rank (training.distributed); a single process by default
        self.group = group if group is not None else distributed.SINGLE
        self.episode = 0
        self._resume = False

    def resume(self, checkpoints: Path | None) -> int | None:
        """Continue from `checkpoints/mappo/last` when there is one (loaded by `run`, which reports the
        update it resumed from in its "started" event); returns that checkpoint's episode, or None.
        Every rank of a group answers what rank 0 found."""
        self._resume = checkpoints is not None
        state = Path(checkpoints) / "mappo" / "last" / "state.json" if checkpoints is not None else None
        found = None
        if state is not None and state.is_file():
            found = int(json.loads(state.read_text()).get("episodes_done", 0))
        found = distributed.rank0_choice(self.group, found)
        if found is None:
            return None
        self.episode = found
        return self.episode

    def run(
        self,
        events: EventStream,
        should_stop: Callable[[], bool] = lambda: False,
        checkpoint_root: Path | None = None,
        episodes: int | None = None,
        resumed_from: int | None = None,
        progress: Callable[[int, dict], None] | None = None,
    ) -> TrainResult:
        """Train; `episodes` overrides `training.episodes`; `progress(update, metrics)` after every update.
        Checkpoints go to `out_dir/checkpoints/mappo/{last,best}` (`checkpoint_root` is not consulted)."""
        team = self.spec
        if episodes is not None:
            team = replace(team, training=replace(team.training, episodes=int(episodes)))
        result = run_spec(
            team,
            self.out_dir,
            events=events,
            should_stop=should_stop,
            resume=self._resume,
            backbone=self.backbone,
            progress=progress,
            human_feedback=self.human_feedback,
            group=self.group,
        )
        metrics = {k: v for k, v in (result.get("metrics") or {}).items() if isinstance(v, (int, float))}
        self.episode, updates = int(metrics.get("episode", 0)), int(metrics.get("step", 0))
        seconds = float(result.get("train_seconds", 0.0))
        return TrainResult(result["status"], self.episode, updates, seconds, metrics, None)


def build_trainer(
    team: Any,
    out_dir: str | Path,
    *,
    backbone: Any = None,
    human_feedback: Any = None,
    group: distributed.Group | None = None,
    overrides: dict[str, Any] | None = None,
) -> MappoSpecTrainer:
    """mappo's and ippo's builder (training.algorithms). MappoConfig takes no overrides beyond the spec:
    a run asked for some is refused rather than trained without them."""
    if overrides:
        raise TrainingError(
            f"trainer overrides ({', '.join(overrides)}) reach reinforce_comm only; put MAPPO settings in the spec"
        )
    return MappoSpecTrainer(team, out_dir, backbone=backbone, human_feedback=human_feedback, group=group)
