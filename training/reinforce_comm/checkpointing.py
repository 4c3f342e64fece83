"""Checkpoints of a `ReinforceCommTrainer`: everything needed to continue bit-for-bit (training.checkpoint).

Groups of tensors: `heads` (the policy but its attention), `comm` (the attention), `optimizer`, `rng`,
`protocol` (the HCP codebook, when the team speaks through one), and `adapters` when they are trained;
the JSON state carries the counters, the schedules' state, the config and the spec.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.protocol.link import load_link
from training import checkpoint as ckpt
from training import distributed
from training.events import EventStream


class Checkpointing:
    """`resume`, `save_checkpoint`, `load_checkpoint` (a part of `ReinforceCommTrainer`)."""

    def resume(self, checkpoints: Path | None) -> int | None:
        """Load the newest complete checkpoint under `checkpoints` (None: start afresh); returns its
        episode, or None. Every rank of a group resumes from the checkpoint rank 0 saw."""
        latest = ckpt.latest_checkpoint(checkpoints) if checkpoints is not None else None
        latest = distributed.rank0_choice(self.group, latest)
        return int(self.load_checkpoint(latest)["episode"]) if latest is not None else None

    def save_checkpoint(self, root: Path, events: EventStream | None = None) -> Path:
        """Write a checkpoint of everything needed to continue bit-for-bit (see training.checkpoint)."""
        state = self.policy.state_dict()
        heads = {k: v for k, v in state.items() if not k.startswith("attention.")}
        comm = {k: v for k, v in state.items() if k.startswith("attention.")}
        opt_tensors, opt_meta = ckpt.optimizer_tensors(self.optimizer)
        meta = {
            "episode": self.episode,
            "update": self.update_index,
            "seconds": self.seconds,
            "baseline": self.baseline_value,
            "success_ema": self.success_ema,
            "attention_started_at": self.attention_started_at,
            "numpy_rng": self.rng.bit_generator.state,
            "optimizer": opt_meta,
            "evolution": self.evolution.state_dict(),
            "event_seq": events.last_seq if events is not None else None,
            "agents": self.agents,
            "config": asdict(self.config),
            "spec": self.spec.to_dict() if hasattr(self.spec, "to_dict") else None,
        }
        groups = {
            "heads": heads,
            "comm": comm,
            "optimizer": opt_tensors,
            "rng": {"torch": self.generator.get_state()},
        }
        if self.link is not None:
            # the codebook travels with the weights: whoever loads them reads messages the same way
            arrays, meta["protocol"] = self.link.state()
            if arrays:
                groups["protocol"] = {k: torch.from_numpy(v) for k, v in arrays.items()}
        return ckpt.write_checkpoint(Path(root), self.update_index, groups, meta, adapters=self.adapters)

    def load_checkpoint(self, path: Path) -> dict[str, Any]:
        """Restore a checkpoint written by `save_checkpoint`; returns its JSON state."""
        path = Path(path)
        state = ckpt.read_state(path)
        if state.get("agents") != self.agents:
            raise ckpt.CheckpointError(
                f"checkpoint {path} is for agents {state.get('agents')}, not {self.agents}"
            )
        tensors = {
            **ckpt.load_tensors(path / "heads.safetensors"),
            **ckpt.load_tensors(path / "comm.safetensors"),
        }
        ckpt.load_state_dict_strict(self.policy, tensors, "policy heads / communication weights")
        ckpt.restore_optimizer(
            self.optimizer, ckpt.load_tensors(path / "optimizer.safetensors"), state["optimizer"]
        )
        for index, group in enumerate(self.optimizer.param_groups):
            if index != 1:  # this run's step size (√processes), not the saving run's; [1] follows β
                group["lr"] = self.lr
        rng = ckpt.load_tensors(path / "rng.safetensors")
        try:
            self.generator.set_state(rng["torch"])
            self.rng.bit_generator.state = state["numpy_rng"]
        except (KeyError, ValueError, TypeError, RuntimeError) as exc:
            raise ckpt.CheckpointError(f"checkpoint {path} has an unusable RNG state ({exc})") from exc
        if self.group.rank:  # rank 0 saved its own streams; the others draw fresh ones of their own
            fresh = [self.config.seed, self.group.rank, int(state["update"])]
            self.rng = np.random.default_rng(fresh)
            self.generator.manual_seed(int(np.random.SeedSequence(fresh).generate_state(1)[0]))
        if self.adapters is not None:
            self.adapters.load(path / "adapters")
            self._tables.clear()
        self.episode = int(state["episode"])
        self.update_index = int(state["update"])
        self.seconds = float(state.get("seconds", 0.0))
        self.baseline_value = float(state["baseline"])
        self.success_ema = float(state.get("success_ema", 0.0))
        started = state.get("attention_started_at")
        self.attention_started_at = None if started is None else int(started)
        self.evolution.load_state_dict(state["evolution"])
        if self.link is not None:
            self.link = load_link(path, state, events=self.link.events)
        return state
