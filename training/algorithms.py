"""Each training algorithm's builder: what `training.api.train` builds for a spec's `training.algorithm`.

The algorithm is the unit. Its options model and capabilities are declared in the spec's capability
table (`agents.spec.algorithms.ALGORITHM_TABLE`, below the training layer so the validator can read
them), its training section is the spec's union member for it; its package provides a `build_trainer`
that turns a checked team spec into its trainer — the algorithm's own trainer class, which is a
`training.trainer.Trainer` (no adapter) — and this table registers it under the algorithm's name.
`train` looks the algorithm up here and drives every trainer the same way;
tests/agents/test_algorithms.py checks that both tables name the same algorithms.

A builder takes the team spec (its budget already set: `training.episodes` is the one place a run's
episode count is read, written there by `agents.spec.with_episodes`) and the run's directory, and
keyword arguments every builder accepts: `events` (the run's stream, for trainers whose companions
report while they are built), `backbone` (an already loaded one, or None), `human_feedback` (the
`human_feedback` reward term's source, or None), `group` (the data-parallel rank) and `overrides`
(trainer hyper-parameters beyond the spec, for the algorithms whose config takes them).
"""

from __future__ import annotations

from collections.abc import Callable

from training.mappo.build import build_trainer as build_ppo_trainer
from training.reinforce_comm import build_trainer as build_reinforce_comm_trainer
from training.trainer import Trainer

__all__ = ["BUILDERS", "builder"]

BUILDERS: dict[str, Callable[..., Trainer]] = {
    "reinforce_comm": build_reinforce_comm_trainer,
    "mappo": build_ppo_trainer,
    "ippo": build_ppo_trainer,
}
"""Algorithm name → the builder of its trainer."""


def builder(algorithm: str) -> Callable[..., Trainer]:
    """The builder of `algorithm`'s trainer (KeyError naming the registered ones when it has none)."""
    try:
        return BUILDERS[algorithm]
    except KeyError:
        raise KeyError(
            f"no trainer registered for {algorithm!r}; registered: {', '.join(BUILDERS)}"
        ) from None
