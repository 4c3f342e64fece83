"""The learning aids beside MAPPO's PPO loss, as functions of what they read: the teacher's fading weight
and self-imitation of replayed steps whose return beat the critic (`training.self_imitation`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from training.mappo.config import MappoConfig
from training.mappo.losses import ValueNorm
from training.self_imitation import self_imitation_loss, stack


def teacher_weight(cfg: MappoConfig, update_index: int) -> float:
    """`teacher_coef`, faded linearly to 0 over the first `teacher_fade_updates` updates: a teacher speeds
    the start and, kept at full weight, holds the student at the teacher's level (docs/decisions/0008-teacher-fade-out.md)."""
    fade = cfg.teacher_fade_updates
    return cfg.teacher_coef * (max(0.0, 1.0 - update_index / fade) if fade > 0 else 1.0)


def self_imitate(
    cfg: MappoConfig,
    replay: Any,
    actor: nn.Module,
    critic: nn.Module,
    value_norm: ValueNorm | None,
    learning: torch.Tensor,
    optimiser_step: Callable[[torch.Tensor], None],
) -> dict[str, list[float]]:
    """`sil_minibatches` steps on replayed samples imitated where their return beat the critic, over the
    `learning` agents ([N] bool); `optimiser_step(loss)` takes each step as the PPO epochs do."""
    losses, better = [], []
    for _ in range(cfg.sil_minibatches):
        s = stack(replay.sample(cfg.sil_batch_size))
        logits, _ = actor(s["obs"], s["noise"], s["beta"], s["present"], s["valid"], s["heard"])
        log_probs = torch.distributions.Categorical(logits=logits).log_prob(s["actions"])
        returns = s["returns"] if value_norm is None else value_norm.normalize(s["returns"])
        loss, share = self_imitation_loss(
            log_probs, critic(s["state"], s["obs"]), returns, s["present"] & learning, cfg.value_coef
        )
        optimiser_step(cfg.self_imitation * loss)
        losses.append(float(loss.detach()))
        better.append(share)
    return {"sil_loss": losses, "sil_better_share": better}
