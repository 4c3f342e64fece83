"""The data-parallel part of `MappoTrainer` (training.distributed): minibatches every rank splits alike,
the step-count check, averaged gradients and statistics, a common start, the agreed stop, and the
group's metrics. Each is a no-op for a single process, whose results stay exactly as before."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from training import distributed


class DataParallel:
    """Mixed into `MappoTrainer`; reads its `group`, `cfg`, networks, optimiser and sampling streams."""

    def _minibatches(self, perm: torch.Tensor) -> list[torch.Tensor]:
        """One epoch's minibatches. A rank's batch length depends on its own episodes, and `chunk` may give
        fewer pieces than asked for some lengths; a group splits into exactly `minibatches` pieces, so
        every rank takes the same number of optimiser steps (one process keeps `chunk`, as before)."""
        if not self.group.active:
            return list(perm.chunk(self.cfg.minibatches))
        return [idx for idx in perm.tensor_split(self.cfg.minibatches) if idx.numel()]

    def _check_step_count(self, steps: int) -> None:
        """Every rank must take as many optimiser steps as the others (each all-reduces its gradients):
        equal rollouts (`episodes_per_update` each) give that; a rank whose batch has fewer steps than
        `minibatches` would not, and the group fails together here rather than waiting on each other."""
        if not self.group.active:
            return
        planned = self.cfg.epochs * min(steps, self.cfg.minibatches)
        if self.cfg.self_imitation > 0 and self.replay is not None and len(self.replay):
            planned += self.cfg.sil_minibatches
        counts = distributed.gather_floats(self.group, float(planned))
        if len(set(counts)) > 1:
            raise RuntimeError(
                f"the ranks would take different numbers of optimiser steps this update ({counts}): "
                "raise training.batch_size so that every batch has at least `minibatches` steps"
            )

    def _average_gradients(self) -> None:
        """The ranks' gradients of everything the optimiser steps, averaged (before clipping)."""
        if self.group.active:
            distributed.average_gradients(
                self.group,
                [p for g in self.optimizer.param_groups for p in g["params"]],
                agree_on_missing=True,
            )

    def _average_statistics(self) -> None:
        """Value-normalisation statistics (each rank folds in its own returns) averaged over the ranks."""
        if self.group.active:
            norms = [m for m in (self.value_norm, self.q_norm) if m is not None]
            distributed.average_tensors(self.group, [b for m in norms for b in m.buffers()])

    def _start_together(self, resumed: int | None) -> None:
        """Every rank starts from rank 0's networks (its warm start, or the checkpoint all resumed from),
        with sampling streams of its own: `seed + rank` on a fresh run, `(seed, rank, update)` for the
        ranks other than 0 after a resume (rank 0 continues the streams its checkpoint saved)."""
        g = self.group
        if not g.active:
            return
        for module in (self.actor, self.critic, self.q_critic, self.value_norm, self.q_norm):
            if module is not None:
                distributed.broadcast_module(g, module)
        if resumed is None:
            torch.manual_seed(distributed.rank_seed(self.cfg.seed, g))
        elif g.rank:
            fresh = distributed.resume_seed(self.cfg.seed, g, self.update_index)
            self.rng, self.np_rng = random.Random(fresh), np.random.default_rng(fresh)
            torch.manual_seed(fresh)

    def _stop_requested(self, should_stop: Callable[[], bool]) -> bool:
        """One process: `should_stop()`. A group: rank 0's request (the others read none), agreed on by all."""
        if not self.group.active:
            return should_stop()
        return distributed.any_true(self.group, should_stop())

    def _group_metrics(self, metrics: dict[str, Any], elapsed: float) -> dict[str, Any]:
        """A group's metrics: the ranks' means, and each rank's episodes per second with their sum."""
        if not self.group.active:
            return metrics
        rates = distributed.gather_floats(self.group, self.cfg.episodes_per_update / max(elapsed, 1e-9))
        metrics = distributed.mean_metrics(self.group, metrics)
        metrics["episodes_per_second"] = sum(rates)
        metrics.update({f"rank{r}_episodes_per_second": x for r, x in enumerate(rates)})
        return metrics
