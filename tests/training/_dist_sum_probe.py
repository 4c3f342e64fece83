"""Run by tests/training/test_distributed.py under `torch.distributed.run --nproc-per-node=2`: gradients
averaged through shared memory (training.local_sum) against gloo's all-reduce of the same numbers."""

from __future__ import annotations

import json
import os
import sys

import torch
import torch.distributed as dist

from training.distributed import average_gradients, join, leave


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
    report["files_left"] = sorted(f for f in os.listdir("/dev/shm") if f.startswith("mase-grads-"))
    if group.is_main:
        with open(out_path, "w") as handle:
            json.dump(report, handle)
    leave(group)


if __name__ == "__main__":
    main(sys.argv[1])
