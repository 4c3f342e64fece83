"""PPO pieces, small and pure: GAE, the clipped surrogate, value normalisation, COMA's
counterfactual advantage (docs/design.md#mappo)."""

from __future__ import annotations

import torch
from torch import nn


def explained_variance(predicted: torch.Tensor, target: torch.Tensor) -> float:
    """1 − Var(target − predicted) / Var(target): how much of the returns' spread the critic predicts
    (1 perfect, 0 no better than their mean, negative worse; NaN when the returns do not vary)."""
    spread = target.var(unbiased=False)
    if target.numel() < 2 or float(spread) == 0.0:
        return float("nan")
    return float(1.0 - (target - predicted).var(unbiased=False) / spread)


def compute_gae(
    rewards: torch.Tensor, values: torch.Tensor, dones: torch.Tensor, gamma: float, lam: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Generalised advantage estimation over a flat sequence of steps from whole episodes.

    rewards, values: [T, ...]; dones: [T] (1 where the episode ends after step t; the value after a
    terminal step is 0). Returns (advantages, returns = advantages + values).
    δ_t = r_t + γ V_{t+1}(1 − done_t) − V_t;  A_t = δ_t + γλ(1 − done_t) A_{t+1}.
    """
    T = rewards.shape[0]
    adv = torch.zeros_like(rewards)
    last = torch.zeros_like(rewards[0])
    next_value = torch.zeros_like(values[0])
    for t in reversed(range(T)):
        live = 1.0 - dones[t].to(rewards.dtype)
        live = live.reshape(live.shape + (1,) * (rewards.dim() - 1))
        delta = rewards[t] + gamma * next_value * live - values[t]
        last = delta + gamma * lam * live * last
        adv[t] = last
        next_value = values[t]
    return adv, adv + values


def ppo_clip_loss(
    new_logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    clip: float,
    mask: torch.Tensor | None = None,
) -> torch.Tensor:
    """PPO's clipped surrogate, negated to be minimised: −E[min(ρA, clip(ρ, 1−ε, 1+ε)A)], ρ = π/π_old."""
    ratio = torch.exp(new_logp - old_logp)
    surrogate = torch.minimum(ratio * advantages, ratio.clamp(1 - clip, 1 + clip) * advantages)
    if mask is None:
        return -surrogate.mean()
    mask = mask.to(surrogate.dtype)
    return -(surrogate * mask).sum() / mask.sum().clamp(min=1.0)


class ValueNorm(nn.Module):
    """Running mean/variance of value targets (MAPPO's value normalisation).

    The critic predicts normalised values; `denormalize` turns them back into returns for GAE. Statistics
    are exponentially weighted (`beta`) with bias correction, so early batches do not dominate.
    """

    def __init__(self, shape: int | tuple[int, ...] = (), beta: float = 0.99999, eps: float = 1e-5):
        super().__init__()
        self.beta, self.eps = beta, eps
        self.register_buffer("mean", torch.zeros(shape))
        self.register_buffer("mean_sq", torch.zeros(shape))
        self.register_buffer("debias", torch.zeros(()))

    def stats(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(mean, std) of the targets seen so far."""
        debias = self.debias.clamp(min=self.eps)
        mean = self.mean / debias
        var = (self.mean_sq / debias - mean**2).clamp(min=1e-2)
        return mean, var.sqrt()

    @torch.no_grad()
    def update(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> None:
        """Fold a batch of targets `[B, *shape]` into the statistics (masked rows are ignored)."""
        if mask is None:
            mask = torch.ones(x.shape, dtype=torch.bool)
        w = mask.to(x.dtype)
        n = w.sum(0).clamp(min=1.0)
        batch_mean = (x * w).sum(0) / n
        batch_sq = (x**2 * w).sum(0) / n
        weight = self.beta ** float(x.shape[0])
        self.mean.mul_(weight).add_(batch_mean * (1 - weight))
        self.mean_sq.mul_(weight).add_(batch_sq * (1 - weight))
        self.debias.mul_(weight).add_(1 - weight)

    def normalize(self, x: torch.Tensor) -> torch.Tensor:
        mean, std = self.stats()
        return (x - mean) / std

    def denormalize(self, x: torch.Tensor) -> torch.Tensor:
        mean, std = self.stats()
        return x * std + mean


def counterfactual_advantage(
    q_values: torch.Tensor, probs: torch.Tensor, actions: torch.Tensor
) -> torch.Tensor:
    """COMA's advantage: Q(s, a) − Σ_a' π(a'|o) Q(s, (a_-i, a')).

    q_values: [..., A] — agent i's Q for each of its own actions, the others' actions held at what they
    did; probs: [..., A] — agent i's policy; actions: [...] — what agent i did.
    """
    taken = q_values.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    baseline = (probs * q_values).sum(-1)
    return taken - baseline
