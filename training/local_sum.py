"""Summing gradients over the ranks of one machine through shared memory (docs/distributed.md).

gloo's all-reduce goes through TCP even between two processes on one host: on the 2-core machine one
all-reduce of number guessing's 0.92 MB of gradients costs 2.2–3 ms, as much as the update it follows,
so two processes trained barely faster than one. When every rank of a CPU group is on this machine
(torch's launcher sets LOCAL_WORLD_SIZE = WORLD_SIZE), the ranks map one file in /dev/shm instead:

    slots[generation][rank] ← my vector;   one tiny gloo all-reduce (the only wait);
    sum ← slots[generation][0] + slots[generation][1] + …   (the same order on every rank)

Every rank adds the same numbers in the same order, so the copies of the networks stay bit-identical,
as with gloo. Two generations alternate, so one wait per call suffices: a rank can write generation g
again only after the next call's wait, which every rank reaches after it has finished reading g.
The file is unlinked as soon as every rank has mapped it: nothing is left behind if a rank crashes.
"""

from __future__ import annotations

import os
import tempfile

import torch

OPT_OUT = "MASE_DIST_SHARED_MEMORY"  # "0": sum through gloo even on one machine (to compare the two)


def shared_memory_applies(backend: str, world_size: int) -> bool:
    """Whether a group's gradients can be summed through shared memory: gloo, every rank on this host."""
    local = int(os.environ.get("LOCAL_WORLD_SIZE", "0"))
    return backend == "gloo" and world_size > 1 and local == world_size and os.environ.get(OPT_OUT) != "0"


class SharedMemorySum:
    """Sums one float32 vector per rank into the same total on every rank of one machine."""

    def __init__(self, rank: int, world_size: int):
        self.rank, self.world_size = rank, world_size
        self._slots: torch.Tensor | None = None  # [2 generations, world_size, capacity]
        self._calls = 0
        self.unavailable = False  # no room for the mapping: sum through gloo
        self._signal = torch.zeros(1)

    def _map(self, capacity: int) -> None:
        """(Re)map a file big enough for `capacity` floats per rank; every rank calls this together.

        Rank 0 reserves the whole file up front: a tmpfs too small for it (a container's 64 MB /dev/shm)
        refuses here, and the group keeps summing through gloo, rather than a rank dying of SIGBUS when
        a page cannot be found mid-run."""
        import torch.distributed as dist

        floats = 2 * self.world_size * capacity
        directory = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
        name: list[str | None] = [None]
        if self.rank == 0:
            handle, path = tempfile.mkstemp(prefix="mase-grads-", dir=directory)
            try:
                os.posix_fallocate(handle, 0, 4 * floats)
                name = [path]
            except OSError:
                os.unlink(path)
            finally:
                os.close(handle)
        dist.broadcast_object_list(name, src=0)
        if name[0] is None:
            self.unavailable = True
            return
        self._slots = torch.from_file(name[0], shared=True, size=floats, dtype=torch.float32)
        dist.barrier()  # every rank holds its mapping: the name is no longer needed
        if self.rank == 0:
            os.unlink(name[0])
        self._slots = self._slots.view(2, self.world_size, capacity)

    def sum(self, vector: torch.Tensor) -> torch.Tensor:
        """The sum over the ranks of each rank's `vector` (1-D, the same length on every rank)."""
        import torch.distributed as dist

        n = vector.numel()
        if not self.unavailable and (self._slots is None or self._slots.shape[-1] < n):
            self._map(n)  # the same length on every rank: all remap together
        if self.unavailable:
            total = vector.clone()
            dist.all_reduce(total)
            return total
        generation = self._slots[self._calls % 2]
        self._calls += 1
        generation[self.rank, :n].copy_(vector.reshape(-1))
        dist.all_reduce(self._signal)  # every rank has written its slot
        return generation[:, :n].sum(0)
