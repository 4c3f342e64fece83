"""Run by tests/training/test_distributed.py under `torch.distributed.run --nproc-per-node=2`: gradients
averaged through shared memory (training.local_sum) against gloo's all-reduce of the same numbers."""

from __future__ import annotations

import json
import os
import sys

import torch
import torch.distributed as dist

from training.distributed import average_gradients, join, leave
from training.local_sum import SharedMemorySum


def grads(seed: int, sizes: list[int]) -> list[torch.nn.Parameter]:
    generator = torch.Generator().manual_seed(seed)
    params = [torch.nn.Parameter(torch.zeros(n)) for n in sizes]
    for p in params:
        p.grad = torch.randn(p.shape, generator=generator)
    return params


def main(out_path: str) -> None:
    torch.set_num_threads(1)
    group = join("cpu")
    report: dict = {"shared_memory": group.local_sum is not None, "calls": []}
    for call, sizes in enumerate([[5, 7], [5, 7], [1000, 3], [5, 7], [1000, 3]]):  # grows, then reuses
        mine = grads(100 * call + group.rank, sizes)
        expected = [p.grad.clone() for p in mine]
        for e in expected:
            dist.all_reduce(e)
            e /= group.world_size
        extras = average_gradients(group, mine, (float(group.rank), 2.0))
        together = torch.cat([p.grad for p in mine])
        copies = [torch.zeros_like(together) for _ in range(group.world_size)]
        dist.all_gather(copies, together)
        report["calls"].append(
            {
                "equal_to_gloo": all(torch.equal(p.grad, e) for p, e in zip(mine, expected, strict=True)),
                "identical_on_ranks": all(torch.equal(copies[0], c) for c in copies),
                "extras": list(extras),
            }
        )

    # no room in /dev/shm (a container's small tmpfs): the group agrees to sum through gloo instead
    def no_room(fd: int, offset: int, length: int) -> None:
        raise OSError(28, "No space left on device")

    os.posix_fallocate = no_room
    cramped = SharedMemorySum(group.rank, group.world_size)
    vector = torch.arange(6.0) * (group.rank + 1)
    total = cramped.sum(vector)
    report["without_room"] = {"unavailable": cramped.unavailable, "total": total.tolist()}
    report["files_left"] = sorted(f for f in os.listdir("/dev/shm") if f.startswith("mase-grads-"))
    if group.is_main:
        with open(out_path, "w") as handle:
            json.dump(report, handle)
    leave(group)


if __name__ == "__main__":
    main(sys.argv[1])
