"""Self-imitation from the dual replay: the team relearns its own best past moves.

PPO learns from each batch for a few epochs and then forgets it. When a team rarely stumbles on a better
way — a supervisor that waits for a role's second answer instead of approving early — the lucky episode
moves the policy once and is gone, so whether the team ever adopts it is close to a coin flip.
Self-imitation learning (Oh et al., 2018) keeps past steps and imitates those whose return beat what the
critic now expects:

    L = −Σ log π(a_t | o_t) · (G_t − V(s_t))₊  +  ½ · value_coef · Σ ((G_t − V(s_t))₊)²

Only actions that did better than expected pull the policy (the clip at zero), so nothing worse than
the current policy is ever imitated, and the value is raised where it was too pessimistic.

The steps live in the dual replay (docs/design.md#dual-replay; `training.replay.DualReplay`): the recent buffer holds
the last steps, the elite buffer the steps of the highest-return episodes; a minibatch mixes both. The
replay is not checkpointed (it can hold hundreds of megabytes of observations): a resumed run refills it
from its next episodes.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from training.replay import DualReplay


@dataclass
class ReplayedStep:
    """One team step as the actor and critic need it again, with the discounted return that followed."""

    obs: torch.Tensor  # [N, D]
    state: torch.Tensor  # [S]
    present: torch.Tensor  # [N] bool
    valid: torch.Tensor  # [N, A_max] bool
    actions: torch.Tensor  # [N] long
    noise: torch.Tensor  # [N, N]: the attention noise the step acted with
    beta: torch.Tensor  # []
    heard: torch.Tensor | None  # [N, D] or None
    returns: torch.Tensor  # [N]: G_t per agent


def discounted_returns(rewards: torch.Tensor, dones: torch.Tensor, gamma: float) -> torch.Tensor:
    """G_t = r_t + γ·G_{t+1}·(1 − done_t) over a flat sequence of whole episodes; rewards [T, N], dones [T]."""
    returns = torch.zeros_like(rewards)
    following = torch.zeros_like(rewards[0])
    for t in range(rewards.shape[0] - 1, -1, -1):
        following = rewards[t] + gamma * following * (1.0 - dones[t].float())
        returns[t] = following
    return returns


def remember(replay: DualReplay, batch, episode_returns: list[float], gamma: float) -> None:
    """Store every step of a batch of whole episodes; a step's priority is its episode's return."""
    returns = discounted_returns(batch.rewards, batch.dones, gamma)
    episode = 0
    for t in range(batch.obs.shape[0]):
        step = ReplayedStep(
            obs=batch.obs[t].clone(),
            state=batch.state[t].clone(),
            present=batch.present[t].clone(),
            valid=batch.valid[t].clone(),
            actions=batch.actions[t].clone(),
            noise=batch.noise[t].clone(),
            beta=batch.beta[t].clone(),
            heard=None if batch.heard is None else batch.heard[t].clone(),
            returns=returns[t].clone(),
        )
        replay.add(step, priority=episode_returns[episode])
        episode += int(bool(batch.dones[t]))


def stack(steps: list[ReplayedStep]) -> dict[str, torch.Tensor | None]:
    """A minibatch of replayed steps as tensors with a leading batch dimension."""
    out: dict[str, torch.Tensor | None] = {}
    for name in ReplayedStep.__dataclass_fields__:
        values = [getattr(s, name) for s in steps]
        out[name] = None if values[0] is None else torch.stack(values)
    return out


def self_imitation_loss(
    log_probs: torch.Tensor,
    values: torch.Tensor,
    returns: torch.Tensor,
    mask: torch.Tensor,
    value_coef: float,
) -> tuple[torch.Tensor, float]:
    """(loss, share of masked agent-steps that beat the critic) for log π(a_t) [B, N], V and G [B, N].

    `values` and `returns` must be on the same scale (both normalised when the trainer normalises values).
    """
    gap = (returns - values).clamp(min=0.0)
    weight = mask.float()
    count = weight.sum().clamp(min=1.0)
    policy = -(log_probs * gap.detach() * weight).sum() / count
    value = 0.5 * ((gap**2) * weight).sum() / count
    better = float(((gap > 0) & mask).sum()) / float(count)
    return policy + value_coef * value, better
