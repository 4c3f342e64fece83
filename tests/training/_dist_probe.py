"""Run by tests/training/test_distributed.py under `torch.distributed.run --nproc-per-node=2`: each rank
builds the trainer, plays a few updates on its own episodes, and rank 0 writes what the ranks saw."""

from __future__ import annotations

import json
import sys

import torch
import torch.distributed as dist

from agents.spec import load_spec
from training.distributed import join, leave
from training.reinforce_comm import ReinforceCommTrainer


def flat(module: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().reshape(-1) for p in module.parameters()])


def main(spec_path: str, out_path: str) -> None:
    torch.set_num_threads(1)
    group = join("cpu")
    trainer = ReinforceCommTrainer(load_spec(spec_path), group=group, attention_start_success=0.0)
    start = flat(trainer.policy)
    embeddings, secrets = trainer.sample(32)
    gathered = [torch.zeros_like(secrets) for _ in range(group.world_size)]
    dist.all_gather(gathered, secrets)
    for _ in range(3):
        trainer.update(*trainer.sample(32))
    end = flat(trainer.policy)
    starts = [torch.zeros_like(start) for _ in range(group.world_size)]
    ends = [torch.zeros_like(end) for _ in range(group.world_size)]
    dist.all_gather(starts, start)
    dist.all_gather(ends, end)
    if group.is_main:
        report = {
            "world_size": group.world_size,
            "backend": group.backend,
            "same_start": all(torch.equal(starts[0], s) for s in starts),
            "same_after_updates": all(torch.equal(ends[0], e) for e in ends),
            "moved": not torch.equal(starts[0], ends[0]),
            "own_episodes": not all(torch.equal(gathered[0], g) for g in gathered[1:]),
            "episode": trainer.episode,
            "updates": trainer.update_index,
        }
        with open(out_path, "w") as handle:
            json.dump(report, handle)
    leave(group)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
