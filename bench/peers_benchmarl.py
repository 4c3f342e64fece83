"""One BenchMARL run for `bench/peers.py`, executed by the peer virtualenv's Python (never imported by MASE).

Usage: python peers_benchmarl.py --task simple_spread --algorithm mappo --frames 24000 --seed 0 --out r.json

BenchMARL's own defaults (experiment, algorithm, MLP model, task yaml) with only these overrides, so that
both libraries play the same task: discrete actions (MASE's trainer acts on Discrete spaces), the
episode length `--max-cycles`, the frame budget, an evaluation after every collected batch (10
deterministic episodes, BenchMARL's default count), no loggers, no rendering, no checkpoints.

PettingZoo ≥ 1.25 moved the Multi-Particle tasks to the `mpe2` package, and torchrl looks tasks up in
PettingZoo's module table; a table of the mpe2 modules stands in for it (`register_mpe2`).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import torch
from benchmarl.experiment.callback import Callback

TASKS = {
    "simple_spread": ("SIMPLE_SPREAD", "simple_spread_v3"),
    "simple_reference": ("SIMPLE_REFERENCE", "simple_reference_v3"),
    "simple_speaker_listener": ("SIMPLE_SPEAKER_LISTENER", "simple_speaker_listener_v4"),
}


class Recorder(Callback):
    """Mean evaluation return (per agent, summed over an episode) at each evaluation, with the frames and
    seconds so far (a module-level class: BenchMARL pickles its callbacks)."""

    def __init__(self) -> None:
        super().__init__()
        self.curve: list[dict] = []
        self.start = time.perf_counter()

    def on_evaluation_end(self, rollouts) -> None:  # noqa: ANN001 - BenchMARL's signature
        returns = []
        for rollout in rollouts:
            per_agent = [
                rollout.get(("next", group, "reward")).sum(0).flatten() for group in self.experiment.group_map
            ]
            returns.append(float(torch.cat(per_agent).mean()))
        self.curve.append(
            {
                "frames": int(self.experiment.total_frames),
                "return": sum(returns) / len(returns),
                "seconds": time.perf_counter() - self.start,
            }
        )


def register_mpe2() -> None:
    """Make torchrl's PettingZoo loader find the mpe2 tasks: it reads `pettingzoo.utils.all_modules`, whose
    import pulls every PettingZoo family (Atari's emulator included); a table of the mpe2 tasks stands in."""
    import importlib
    import sys
    import types

    table = types.ModuleType("pettingzoo.utils.all_modules")
    table.all_environments = {
        f"mpe/{name}": importlib.import_module(f"mpe2.{name}") for _, name in TASKS.values()
    }
    sys.modules["pettingzoo.utils.all_modules"] = table


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", choices=sorted(TASKS), required=True)
    ap.add_argument("--algorithm", choices=("mappo", "ippo"), required=True)
    ap.add_argument("--frames", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-cycles", type=int, default=25)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    torch.set_num_threads(1)
    register_mpe2()
    from benchmarl.algorithms import IppoConfig, MappoConfig
    from benchmarl.environments import PettingZooTask
    from benchmarl.experiment import Experiment, ExperimentConfig
    from benchmarl.models.mlp import MlpConfig

    experiment_config = ExperimentConfig.get_from_yaml()
    batch = int(experiment_config.on_policy_collected_frames_per_batch)
    frames = max(batch, (args.frames // batch) * batch)  # whole batches, as BenchMARL counts them
    experiment_config.max_n_frames = frames
    experiment_config.prefer_continuous_actions = False
    experiment_config.evaluation_interval = batch
    experiment_config.loggers = []
    experiment_config.create_json = True  # BenchMARL evaluates only when something records it
    experiment_config.render = False
    experiment_config.checkpoint_at_end = False
    experiment_config.save_folder = tempfile.mkdtemp(prefix="benchmarl-")

    task = getattr(PettingZooTask, TASKS[args.task][0]).get_from_yaml()
    task.config["max_cycles"] = args.max_cycles
    algorithm = (MappoConfig if args.algorithm == "mappo" else IppoConfig).get_from_yaml()

    recorder = Recorder()
    experiment = Experiment(
        task=task,
        algorithm_config=algorithm,
        model_config=MlpConfig.get_from_yaml(),
        critic_model_config=MlpConfig.get_from_yaml(),
        seed=args.seed,
        config=experiment_config,
        callbacks=[recorder],
    )
    recorder.start = time.perf_counter()
    experiment.run()
    seconds = time.perf_counter() - recorder.start
    with open(args.out, "w") as f:
        json.dump(
            {
                "frames": int(experiment.total_frames),
                "seconds": seconds,
                "curve": recorder.curve,
                "batch_frames": batch,
            },
            f,
        )


if __name__ == "__main__":
    main()
