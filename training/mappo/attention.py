"""Who listens to whom in a trained MAPPO team: the "attention" events a run's communication views and
the designer's learned-communication overlay read (rows listeners, columns speakers, in the team's —
the drawn roster's — agent order), measured on greedy episodes.

`attention_reporter` wraps a run's `progress` callback so that every evaluation and the last update
emit one ``attention`` event (mode "eval") before the trainer's ``finished`` event closes the stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

EPISODES = 24  # greedy episodes averaged per report (tickets are a few steps each: a moment)


def attention_matrix(trainer: Any, episodes: int = EPISODES, seed: int = 20_000) -> list[list[float]] | None:
    """The actor's attention weights averaged over every step of ``episodes`` greedy episodes, as an
    N × N list (row i: how much agent i listened to each agent); None for a team without communication."""
    total: list[torch.Tensor] = []

    def keep(_module: Any, _inputs: Any, output: Any) -> None:
        alpha = output[1] if isinstance(output, tuple) and len(output) > 1 else None
        if alpha is not None:
            total.append(alpha.detach().reshape(-1, alpha.shape[-2], alpha.shape[-1]).mean(0))

    handle = trainer.actor.register_forward_hook(keep)
    try:  # on the validation split: the training environment's random state is left as it was
        trainer.evaluate("validation", episodes=episodes, seed=seed)
    finally:
        handle.remove()
    if not total:
        return None
    return [[round(float(w), 4) for w in row] for row in torch.stack(total).mean(0).tolist()]


def attention_reporter(
    trainer: Any, events: Any, every: int, last: int, progress: Callable[[int, dict], None] | None = None
) -> Callable[[int, dict], None]:
    """A `progress` callback that emits an ``attention`` event at each ``every``-th update and at update
    ``last``, then calls ``progress``."""

    def report(update: int, metrics: dict) -> None:
        if update == last or (every and update % every == 0):
            matrix = attention_matrix(trainer)
            if matrix is not None:
                events.emit("attention", step=update, agents=list(trainer.agents), matrix=matrix, mode="eval")
        if progress is not None:
            progress(update, metrics)

    return report
