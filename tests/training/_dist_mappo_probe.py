"""Run by tests/training/test_distributed_mappo.py under `torch.distributed.run --nproc-per-node=2`: each
rank trains a MAPPO spec through `training.api.train` (as training.distributed_worker does), and rank 0
writes what the ranks saw: their networks after the broadcast and at the end, and the episodes they played."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
import torch.distributed as dist

from training.api import train
from training.distributed import join, leave
from training.events import EventStream
from training.mappo.trainer import MappoTrainer


def flat(trainer: MappoTrainer) -> torch.Tensor:
    modules = [trainer.actor, trainer.critic, trainer.value_norm]
    return torch.cat([t.detach().reshape(-1).double() for m in modules for t in m.state_dict().values()])


def gathered(group, tensor: torch.Tensor) -> list[torch.Tensor]:
    out = [torch.zeros_like(tensor) for _ in range(group.world_size)]
    dist.all_gather(out, tensor)
    return out


def main(spec_path: str, out_dir: str, report_path: str) -> None:
    torch.set_num_threads(1)
    group = join("cpu")
    seen: dict = {"seeds": [], "keys": [], "saves": 0}
    start_together, run_episode = MappoTrainer._start_together, MappoTrainer.run_episode
    save_checkpoint = MappoTrainer.save_checkpoint

    def record_start(self, resumed):
        start_together(self, resumed)
        seen["trainer"], seen["start"] = self, flat(self)

    def record_episode(self, greedy=False, explore=False, seed=None, options=None, record=None):
        if record is not None:  # a training episode (evaluations pass no record)
            seen["seeds"].append(int(seed))
            seen["keys"].append(self.episodes_done)
        return run_episode(self, greedy, explore, seed, options, record)

    def count_save(self, directory, metrics=None):
        seen["saves"] += 1
        return save_checkpoint(self, directory, metrics)

    MappoTrainer._start_together, MappoTrainer.run_episode = record_start, record_episode
    MappoTrainer.save_checkpoint = count_save
    result = train(spec_path, Path(out_dir), events=EventStream(), group=group, resume=False)
    trainer = seen["trainer"]
    starts, ends = gathered(group, seen["start"]), gathered(group, flat(trainer))
    seeds = gathered(group, torch.tensor(seen["seeds"], dtype=torch.float64))
    keys = gathered(group, torch.tensor(seen["keys"], dtype=torch.float64))
    levels = gathered(group, torch.tensor([float(trainer.curriculum.level)], dtype=torch.float64))
    saves = gathered(group, torch.tensor([float(seen["saves"])], dtype=torch.float64))
    if group.is_main:
        report = {
            "world_size": group.world_size,
            "status": result.status,
            "episodes": result.episodes,
            "updates": result.updates,
            "same_start": all(torch.equal(starts[0], s) for s in starts),
            "same_end": all(torch.equal(ends[0], e) for e in ends),
            "moved": not torch.equal(starts[0], ends[0]),
            "seeds": [s.tolist() for s in seeds],
            "episode_numbers": [k.tolist() for k in keys],
            "levels": [float(level.item()) for level in levels],
            "saves": [int(n.item()) for n in saves],
        }
        Path(report_path).write_text(json.dumps(report))
    leave(group)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
