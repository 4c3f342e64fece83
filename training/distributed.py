"""Data-parallel training over several processes with torch.distributed (docs/distributed.md).

Every process (rank) holds a full copy of the team's small trainable networks, plays its own episodes
with its own environment seeds (`seed + rank`) and computes its own gradients; before each optimizer
step the gradients are averaged over all ranks with one all-reduce (gloo on CPU, NCCL on GPUs; through
shared memory when every CPU rank is on one machine, training.local_sum), so every rank takes the same step
and the copies stay identical. The few batch statistics that steer the
schedule (mean reward for the moving-average baseline, mean success for the attention start) travel in
the same all-reduce, so the ranks also agree on *when* things happen. Rank 0 alone writes events and
checkpoints.

Two halves live here, neither importing the trainers:

- inside a rank: `join()` reads the launcher's environment (WORLD_SIZE, RANK, LOCAL_RANK, MASTER_ADDR…)
  and returns a `Group`; `average_gradients`, `any_true`, `gather_floats`, `mean_metrics` and
  `broadcast_module` are the collectives the trainers call (each a no-op for a single process, so one
  process gives exactly today's results);
- around the ranks: `launch()` starts `python -m torch.distributed.run` (torch's elastic launcher,
  `--standalone` on one machine) on `training.distributed_worker`, follows rank 0's event file and hands
  each event to the caller, and turns the caller's `should_stop()` into a STOP file the ranks read. A rank
  that crashes makes the launcher restart the whole group (`--max-restarts`); the ranks resume from the
  newest checkpoint and rank 0's event numbering continues from its file.

Multi-node: start the same worker module with the launcher on every machine, pointing at one
rendezvous endpoint (docs/distributed.md).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch

from training.local_sum import SharedMemorySum, shared_memory_applies

STOP_FILE = "STOP"  # created in the run directory to ask the ranks to stop (checkpoint, "cancelled")
RANKS_DIR = "distributed"  # rank 0's own event log and the launcher's log live here
EVENTS_FILE = "events.jsonl"
LAUNCH_SPEC = "launch_spec.json"
LAUNCHER_LOG = "launcher.log"


class DistributedError(RuntimeError):
    """The process group could not be formed, or the launched group failed for good."""


@dataclass(frozen=True)
class Group:
    """Where this process stands in the group; `Group()` is a single process (every collective a no-op)."""

    rank: int = 0
    world_size: int = 1
    local_rank: int = 0
    device: str | None = None  # the device this rank trains on; None = the spec's training.device
    backend: str | None = None  # "gloo" | "nccl" once joined
    # gloo ranks all on this machine sum their gradients through shared memory (training.local_sum)
    local_sum: SharedMemorySum | None = field(default=None, compare=False, repr=False)

    @property
    def active(self) -> bool:
        return self.world_size > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    @property
    def _tensor_device(self) -> torch.device:
        # NCCL reduces only CUDA tensors; gloo only CPU ones
        return torch.device(self.device if self.backend == "nccl" and self.device else "cpu")


SINGLE = Group()


def rank_device(requested: str, local_rank: int) -> str:
    """The device of rank `local_rank` on its machine: "auto" becomes CUDA when present, and a CUDA run
    gives each local rank its own GPU (NCCL does not share one GPU between ranks)."""
    if requested == "auto":
        requested = "cuda" if torch.cuda.is_available() else "cpu"
    if requested.startswith("cuda"):
        if not torch.cuda.is_available():
            raise DistributedError(f"training.device is {requested!r} but this machine has no CUDA device")
        return f"cuda:{local_rank % torch.cuda.device_count()}"
    return requested


def join(requested_device: str = "cpu", timeout_s: float = 600.0) -> Group:
    """The group this process belongs to, formed from the launcher's environment variables.

    Without WORLD_SIZE (or with 1) this is a single process: no process group is created.
    """
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    if world <= 1:
        return SINGLE
    import torch.distributed as dist

    device = rank_device(requested_device, local)
    backend = "nccl" if device.startswith("cuda") else "gloo"
    if device.startswith("cuda"):
        torch.cuda.set_device(torch.device(device))
    if not dist.is_initialized():
        try:
            # The launcher's store outlives a restart of the group; the keys of a failed attempt (its
            # ranks' old addresses) must not be read by the next one, hence one key prefix per attempt.
            store, _, _ = next(dist.rendezvous("env://", rank, world, timeout=timedelta(seconds=timeout_s)))
            attempt = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")
            dist.init_process_group(
                backend,
                store=dist.PrefixStore(f"mase/attempt{attempt}", store),
                rank=rank,
                world_size=world,
                timeout=timedelta(seconds=timeout_s),
            )
        except Exception as exc:  # a rendezvous that never completes, a port in use…
            raise DistributedError(f"rank {rank} could not join the {backend} group: {exc}") from exc
    shared = SharedMemorySum(rank, world) if shared_memory_applies(backend, world) else None
    return Group(
        rank=rank, world_size=world, local_rank=local, device=device, backend=backend, local_sum=shared
    )


def leave(group: Group) -> None:
    """Tear the process group down (at the end of a rank's work)."""
    if group.active:
        import torch.distributed as dist

        if dist.is_initialized():
            dist.destroy_process_group()


# ---------------------------------------------------------------------------------------- collectives


def average_gradients(
    group: Group,
    parameters: Iterable[torch.Tensor],
    extras: Sequence[float] = (),
    *,
    agree_on_missing: bool = False,
) -> tuple[float, ...]:
    """Average the gradients of `parameters` over the ranks in place, and the numbers `extras` with them.

    One all-reduce of one flat buffer. Parameters without a gradient are left without one: whether a
    parameter gets a gradient depends only on state the ranks share (the synchronised schedule), so
    every rank sends the same layout. Where that may depend on a rank's own data, `agree_on_missing`
    first agrees (one small all-reduce) on which parameters have a gradient on *some* rank and gives the
    others zeros there. Returns the averaged `extras` (unchanged for a single process).
    """
    if not group.active:
        return tuple(float(x) for x in extras)
    import torch.distributed as dist

    params = list(parameters)
    if agree_on_missing and params:
        having = torch.tensor([float(p.grad is not None) for p in params], device=group._tensor_device)
        dist.all_reduce(having, op=dist.ReduceOp.MAX)
        for p, anywhere in zip(params, having.tolist(), strict=True):
            if anywhere and p.grad is None:
                p.grad = torch.zeros_like(p)
    grads = [p.grad for p in params if p.grad is not None]
    device = grads[0].device if grads else group._tensor_device
    pieces = [g.reshape(-1).float() for g in grads]
    pieces.append(torch.tensor([float(x) for x in extras], dtype=torch.float32, device=device))
    flat = torch.cat(pieces).to(group._tensor_device)  # NCCL reduces CUDA tensors only (CPU networks)
    if group.local_sum is not None:
        flat = group.local_sum.sum(flat)  # one machine: through shared memory, not gloo's TCP
    else:
        dist.all_reduce(flat, op=dist.ReduceOp.SUM)
    flat = (flat / group.world_size).to(device)
    offset = 0
    for g in grads:
        n = g.numel()
        g.copy_(flat[offset : offset + n].view_as(g))
        offset += n
    return tuple(float(x) for x in flat[offset:].tolist())


def any_true(group: Group, flag: bool) -> bool:
    """True on every rank when `flag` is true on any (a stop request read by rank 0 reaches all)."""
    if not group.active:
        return bool(flag)
    import torch.distributed as dist

    value = torch.tensor([1.0 if flag else 0.0], device=group._tensor_device)
    dist.all_reduce(value, op=dist.ReduceOp.MAX)
    return bool(value.item() > 0)


def gather_lists(group: Group, values: Sequence[float]) -> list[list[float]]:
    """Each rank's `values` (the same length on every rank), in rank order, on every rank."""
    if not group.active:
        return [[float(x) for x in values]]
    import torch.distributed as dist

    mine = torch.tensor([float(x) for x in values], dtype=torch.float64, device=group._tensor_device)
    every = [torch.zeros_like(mine) for _ in range(group.world_size)]
    dist.all_gather(every, mine)
    return [t.cpu().tolist() for t in every]


@torch.no_grad()
def average_tensors(group: Group, tensors: Iterable[torch.Tensor]) -> None:
    """Replace each floating-point tensor by its mean over the ranks, in place (running statistics that
    each rank folds its own batch into, such as value normalisation, kept equal on every rank)."""
    if not group.active:
        return
    import torch.distributed as dist

    items = [t for t in tensors if torch.is_tensor(t) and t.is_floating_point()]
    if not items:
        return
    flat = torch.cat([t.reshape(-1).double() for t in items]).to(group._tensor_device)
    dist.all_reduce(flat, op=dist.ReduceOp.SUM)
    flat = (flat / group.world_size).cpu()
    offset = 0
    for t in items:
        n = t.numel()
        t.copy_(flat[offset : offset + n].view_as(t))
        offset += n


def gather_floats(group: Group, value: float) -> list[float]:
    """Each rank's `value`, in rank order, on every rank (per-rank throughput)."""
    if not group.active:
        return [float(value)]
    import torch.distributed as dist

    mine = torch.tensor([float(value)], dtype=torch.float64, device=group._tensor_device)
    every = [torch.zeros_like(mine) for _ in range(group.world_size)]
    dist.all_gather(every, mine)
    return [float(t.item()) for t in every]


def mean_metrics(group: Group, metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Average the numbers (and lists of numbers, e.g. an attention matrix) of `metrics` over the ranks.

    Every rank must pass the same keys with the same shapes. Other values are kept from this rank.
    """
    if not group.active:
        return dict(metrics)
    import torch.distributed as dist

    keys = sorted(
        k for k, v in metrics.items() if isinstance(v, (int, float, list)) and not isinstance(v, bool)
    )
    tensors = [torch.as_tensor(metrics[k], dtype=torch.float64) for k in keys]
    flat = torch.cat([t.reshape(-1) for t in tensors]) if tensors else torch.zeros(0, dtype=torch.float64)
    flat = flat.to(group._tensor_device)
    dist.all_reduce(flat, op=dist.ReduceOp.SUM)
    flat = (flat / group.world_size).cpu()
    out, offset = dict(metrics), 0
    for key, t in zip(keys, tensors, strict=True):
        part = flat[offset : offset + t.numel()].view(t.shape)
        offset += t.numel()
        out[key] = part.tolist() if isinstance(metrics[key], list) else type(metrics[key])(part.item())
    return out


@torch.no_grad()
def broadcast_module(group: Group, module: torch.nn.Module) -> None:
    """Make every rank's copy of `module` equal rank 0's (parameters and buffers)."""
    if not group.active:
        return
    import torch.distributed as dist

    for tensor in module.state_dict().values():
        if torch.is_tensor(tensor) and tensor.is_floating_point():
            if tensor.device == group._tensor_device:
                dist.broadcast(tensor, src=0)
            else:  # a CPU network in an NCCL group: through the rank's GPU and back
                moved = tensor.to(group._tensor_device)
                dist.broadcast(moved, src=0)
                tensor.copy_(moved)


def rank0_choice(group: Group, value: Any) -> Any:
    """Rank 0's `value` on every rank (a picklable object, e.g. the checkpoint to resume from).

    Ranks that look at the run directory at slightly different moments (a restart while rank 0 was
    writing a checkpoint) could otherwise resume from different episodes and then wait on each other's
    collectives until the group times out.
    """
    if not group.active:
        return value
    import torch.distributed as dist

    box = [value if group.is_main else None]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def lr_scale(group: Group) -> float:
    """The learning-rate factor of a group: √world_size (exactly 1.0 for one process).

    Each rank keeps its `batch_size`, so the global batch grows with the ranks and a budget of episodes
    buys proportionally fewer updates; Adam's square-root scaling rule keeps the progress per episode
    (docs/experiments/2026-12-01-scaling.md measures the 2-process runs with and without it).
    """
    return math.sqrt(group.world_size) if group.active else 1.0


def rank_seed(seed: int, group: Group) -> int:
    """The environment / sampling seed of this rank: `seed + rank` (rank 0 keeps the spec's seed)."""
    return int(seed) + group.rank


def resume_seed(seed: int, group: Group, update: int) -> int:
    """A resumed rank's fresh stream seed, derived from `(seed, rank, update)` (rank 0 resumes the streams
    its checkpoint saved; the others must not replay rank 0's)."""
    import numpy as np

    return int(np.random.SeedSequence([int(seed), group.rank, int(update)]).generate_state(1)[0])


# ---------------------------------------------------------------------------------------- the launcher


def launch_command(
    run_dir: Path,
    processes: int,
    *,
    max_restarts: int = 3,
    episodes: int | None = None,
    rendezvous: Mapping[str, Any] | None = None,
    fresh: bool = False,
) -> list[str]:
    """The argv that starts `processes` ranks of `training.distributed_worker` on this machine.

    `rendezvous` (keys nnodes, node_rank, endpoint, id) replaces `--standalone` for a multi-node run.
    """
    cmd = [sys.executable, "-m", "torch.distributed.run"]
    if rendezvous:
        cmd += [
            f"--nnodes={rendezvous.get('nnodes', 1)}",
            "--rdzv-backend=c10d",
            f"--rdzv-endpoint={rendezvous['endpoint']}",
            f"--rdzv-id={rendezvous.get('id', 'mase')}",
        ]
    else:
        cmd.append("--standalone")
    cmd += [f"--nproc-per-node={int(processes)}", f"--max-restarts={int(max_restarts)}"]
    cmd += ["-m", "training.distributed_worker", "--spec", str(run_dir / RANKS_DIR / LAUNCH_SPEC)]
    cmd += ["--out", str(run_dir)]
    if episodes is not None:
        cmd += ["--episodes", str(int(episodes))]
    if fresh:
        cmd.append("--fresh")  # the first attempt ignores older checkpoints; a restart resumes anyway
    return cmd


class _Follower:
    """Reads the complete lines appended to a JSONL file since it was opened."""

    def __init__(self, path: Path):
        self.path = path
        self.offset = path.stat().st_size if path.is_file() else 0
        self._partial = b""

    def read(self) -> list[dict]:
        if not self.path.is_file():
            return []
        with open(self.path, "rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        self.offset += len(data)
        data = self._partial + data
        *lines, self._partial = data.split(b"\n")
        events = []
        for line in lines:
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line a crashed rank cut short
        return events


def launch(
    spec: Mapping[str, Any],
    run_dir: str | Path,
    processes: int,
    *,
    on_event: Callable[[dict], None],
    should_stop: Callable[[], bool] = lambda: False,
    episodes: int | None = None,
    max_restarts: int = 3,
    env: Mapping[str, str] | None = None,
    poll_s: float = 0.2,
    resume: bool = True,
) -> dict[str, Any]:
    """Train `spec` on `processes` local ranks through torch's elastic launcher; returns rank 0's result.

    Each event rank 0 writes is passed to `on_event` (a dict with "seq", "type", "payload", "time") as
    soon as its line is complete. When `should_stop()` turns true the ranks are asked to stop (they
    checkpoint and finish "cancelled"). Raises `DistributedError` when the group fails after
    `max_restarts` restarts.
    """
    run = Path(run_dir)
    ranks = run / RANKS_DIR
    ranks.mkdir(parents=True, exist_ok=True)
    (ranks / LAUNCH_SPEC).write_text(json.dumps(dict(spec), indent=1))
    for stale in (run / STOP_FILE, run / "result.json"):
        stale.unlink(missing_ok=True)
    follower = _Follower(ranks / EVENTS_FILE)
    cmd = launch_command(run, processes, max_restarts=max_restarts, episodes=episodes, fresh=not resume)
    child_env = {**os.environ, **dict(env or {})}
    child_env.setdefault("OMP_NUM_THREADS", "1")
    child_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(Path(__file__).resolve().parents[1]), child_env.get("PYTHONPATH")) if p
    )
    stop_sent = False
    with open(ranks / LAUNCHER_LOG, "ab") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=child_env)
        try:
            while proc.poll() is None:
                for event in follower.read():
                    on_event(event)
                if not stop_sent and should_stop():
                    (run / STOP_FILE).touch()
                    stop_sent = True
                time.sleep(poll_s)
        except BaseException:
            proc.terminate()  # the launcher passes the signal on to its ranks
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
            raise
    for event in follower.read():
        on_event(event)
    result_file = run / "result.json"
    if proc.returncode != 0 or not result_file.is_file():
        tail = (ranks / LAUNCHER_LOG).read_text(errors="replace")[-3000:]
        raise DistributedError(
            f"the {processes}-process group failed (torch.distributed.run exited with {proc.returncode}); "
            f"last lines of {ranks / LAUNCHER_LOG}:\n{tail}"
        )
    return json.loads(result_file.read_text())


class StopFile:
    """`should_stop()` for rank 0 of a launched group: true once the run directory has a STOP file
    (looked at most every `every` seconds)."""

    def __init__(self, run_dir: str | Path, every: float = 0.5):
        self.path, self.every = Path(run_dir) / STOP_FILE, every
        self._checked, self._stop = 0.0, False

    def __call__(self) -> bool:
        now = time.monotonic()
        if not self._stop and now - self._checked >= self.every:
            self._checked = now
            self._stop = self.path.exists()
        return self._stop


__all__ = [
    "SINGLE", "DistributedError", "Group", "StopFile", "any_true", "average_gradients", "average_tensors",
    "broadcast_module", "gather_floats", "gather_lists", "join", "launch", "launch_command", "leave",
    "mean_metrics", "rank0_choice", "rank_device", "rank_seed", "resume_seed",
]  # fmt: skip
