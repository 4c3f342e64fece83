"""Observations that are already float vectors (PettingZoo's Multi-Particle tasks, `agents.envs.mpe`): passed
through as they are, with no text backbone — the MAPPO trainer's vector-observation path.

An environment opts in with the class attribute ``observation_kind = "vector"``; `from_spec` then builds
the trainer with a `VectorFeaturizer` and loads no backbone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

__all__ = ["VectorFeaturizer", "is_vector_env"]


def is_vector_env(name: str | None) -> bool:
    """Whether environment `name` declares float-vector observations (``observation_kind = "vector"``)."""
    if not name:
        return False
    from agents.envs import env_class

    return getattr(env_class(name), "observation_kind", None) == "vector"


def _flat(x: Any) -> np.ndarray:
    """One observation as a flat float vector: a mapping (a Dict observation) is its fields in key order
    without ``action_mask``, which masks the policy instead of feeding it."""
    if isinstance(x, Mapping):
        parts = [np.asarray(x[k], dtype=np.float32).ravel() for k in sorted(x) if k != "action_mask"]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)
    return np.asarray(x, dtype=np.float32).ravel()


class VectorFeaturizer:
    """Float vectors (or Dict observations of them, `_flat`) in, a [len(items), width] tensor out: rows flattened, zero-padded to a common width
    (agents of one task may see vectors of different sizes), `None` (an absent agent) as zeros.

    The same call signature as `training.mappo.featurizer.Featurizer`, so the trainer takes either.
    """

    clause_block = None  # no clause reader on vectors
    backbone = None

    def __call__(self, items: Sequence[Any], width: int | None = None) -> torch.Tensor:
        rows = [None if x is None else _flat(x) for x in items]
        width = max([width or 0] + [r.shape[0] for r in rows if r is not None])
        out = np.zeros((len(rows), width), dtype=np.float32)
        for i, r in enumerate(rows):
            if r is not None:
                out[i, : r.shape[0]] = r[:width]
        return torch.from_numpy(out)

    def save_cache(self) -> None:
        """Nothing to cache (the text featurizer's interface)."""
