"""`DataParallel`, the part of `MappoTrainer` a group of ranks shares (training.distributed): minibatches every
rank splits alike, the step-count check, averaged gradients and statistics, rank 0's networks at the start,
the agreed stop, and the group's metrics. Each is a no-op for a single process, whose results stay exactly
as before. It holds the group alone: the trainer hands it what to split, average or broadcast."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import torch
from torch import nn

from training import distributed


class DataParallel:
    """What a data-parallel group of MAPPO trainers agrees on; `group` is `distributed.SINGLE` for one process."""

    def __init__(self, group: distributed.Group):
        self.group = group

    def minibatches(self, perm: torch.Tensor, count: int) -> list[torch.Tensor]:
        """One epoch's minibatches. A rank's batch length depends on its own episodes, and `chunk` may give
        fewer pieces than asked for some lengths; a group splits into exactly `count` pieces, so every rank
        takes the same number of optimiser steps (one process keeps `chunk`, as before)."""
        if not self.group.active:
            return list(perm.chunk(count))
        return [idx for idx in perm.tensor_split(count) if idx.numel()]

    def check_step_count(self, planned: int) -> None:
        """Every rank must take as many optimiser steps as the others (each all-reduces its gradients):
        equal rollouts (`episodes_per_update` each) give that; a rank whose batch has fewer steps than
        `minibatches` would not, and the group fails together here rather than waiting on each other."""
        if not self.group.active:
            return
        counts = distributed.gather_floats(self.group, float(planned))
        if len(set(counts)) > 1:
            raise RuntimeError(
                f"the ranks would take different numbers of optimiser steps this update ({counts}): "
                "raise training.batch_size so that every batch has at least `minibatches` steps"
            )

    def average_gradients(self, parameters: list[nn.Parameter]) -> None:
        """The ranks' gradients of `parameters` (everything the optimiser steps), averaged before clipping."""
        if self.group.active:
            distributed.average_gradients(self.group, parameters, agree_on_missing=True)

    def average_statistics(self, norms: Iterable[nn.Module | None]) -> None:
        """Value-normalisation statistics (each rank folds in its own returns) averaged over the ranks."""
        if self.group.active:
            present = [m for m in norms if m is not None]
            distributed.average_tensors(self.group, [b for m in present for b in m.buffers()])

    def broadcast(self, modules: Iterable[nn.Module | None]) -> None:
        """Every rank takes rank 0's copy of `modules` (its warm start, or the checkpoint all resumed from)."""
        for module in modules:
            if module is not None:
                distributed.broadcast_module(self.group, module)

    def stop_requested(self, should_stop: Callable[[], bool]) -> bool:
        """One process: `should_stop()`. A group: rank 0's request (the others read none), agreed on by all."""
        if not self.group.active:
            return should_stop()
        return distributed.any_true(self.group, should_stop())

    def group_metrics(self, metrics: dict[str, Any], episodes: int, elapsed: float) -> dict[str, Any]:
        """A group's metrics: the ranks' means, and each rank's episodes per second with their sum."""
        if not self.group.active:
            return metrics
        rates = distributed.gather_floats(self.group, episodes / max(elapsed, 1e-9))
        metrics = distributed.mean_metrics(self.group, metrics)
        metrics["episodes_per_second"] = sum(rates)
        metrics.update({f"rank{r}_episodes_per_second": x for r, x in enumerate(rates)})
        return metrics
