"""Learned communication between agents: soft attention over who to listen to (docs/design.md#communication-attention).

For agents with hidden states h_i (any task, any backbone):

    q_i = W_Q h_i,   k_j = W_K h_j,   e_ij = q_i·k_j / √d_k   (j ≠ i, and j → i an allowed link)
    α_i = softmax_j(e_ij),            m_i = Σ_j α_ij msg_j

Exploration (training only, in a share of the episodes): α̃_i = softmax(log α_i + β·ε_i) with
ε ~ N(0, I); evaluation routes with α itself.

Delivery: a message whose routing weight is under `delivery_threshold` is not delivered (its weight is
set to 0, it costs nothing); every delivered message costs `message_cost` (see `communication_cost`).

Log-probability of explored weights (what REINFORCE differentiates): let z = log α_i over the K
allowed senders of agent i. Then log α̃ = z + βε − c·1 with c = logsumexp(z + βε), so the centred
log-ratio y = centre(log α̃ − log α) equals β·centre(ε), where centre(v) = v − mean(v). Softmax is
shift-invariant, so α̃ is a one-to-one function of y, which lives in the (K−1)-dimensional subspace
orthogonal to 1. The projection of a standard Gaussian onto that subspace is a standard Gaussian on
it, hence y ~ N(0, β² I_{K−1}) there and

    log π(α̃ | s) = −‖centre(log α̃ − log α)‖² / (2β²) − (K−1)/2 · log(2πβ²) − log|J(α̃)|,

where J is the Jacobian of y ↦ α̃, which depends on α̃ alone. Only the first term depends on the
parameters (through α), so `exploration_log_prob` returns it (plus the β-only constant); its gradient
with respect to log α is centre(log α̃ − log α)/β² = centre(ε)/β: it pulls α towards the explored
weights when the episode beat the baseline and pushes it away otherwise.
"""

from __future__ import annotations

import math

import torch
from torch import nn


def allowed_links(n_agents: int, edges=None, agents: list[str] | None = None) -> torch.Tensor:
    """Boolean `[N, N]` matrix, entry [i, j] True when agent i may receive a message from agent j.

    `edges` is a list of (source, target) id pairs (e.g. the spec's communication edges); None means
    every agent may hear every other. The diagonal (talking to oneself) is always False.
    """
    if edges is None:
        allowed = torch.ones(n_agents, n_agents, dtype=torch.bool)
    else:
        if agents is None:
            raise ValueError("allowed_links needs the agent ids to resolve edges")
        index = {a: i for i, a in enumerate(agents)}
        allowed = torch.zeros(n_agents, n_agents, dtype=torch.bool)
        for source, target in edges:
            allowed[index[target], index[source]] = True
    allowed.fill_diagonal_(False)
    return allowed


def masked_softmax(logits: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Softmax over the last axis restricted to `allowed` entries; rows with none allowed are all 0."""
    masked = logits.masked_fill(~allowed, float("-inf"))
    any_allowed = allowed.any(dim=-1, keepdim=True)
    masked = torch.where(any_allowed, masked, torch.zeros_like(masked))
    return torch.softmax(masked, dim=-1) * any_allowed


def _safe_log(weights: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    # log of the allowed entries, 0 elsewhere (never -inf, so masked sums stay finite).
    return torch.where(allowed, torch.log(weights.clamp_min(1e-30)), torch.zeros_like(weights))


def explore(
    alpha: torch.Tensor,
    beta: float,
    allowed: torch.Tensor,
    noise: torch.Tensor | None = None,
    generator: torch.Generator | None = None,
) -> torch.Tensor:
    """Exploratory weights α̃ = softmax(log α + β·ε), ε ~ N(0, I), over the allowed entries.

    `noise` may be given (tests); otherwise it is drawn from `generator`. The result carries no
    gradient: it is an action sampled from the attention policy.
    """
    alpha = alpha.detach()
    if noise is None:
        noise = torch.randn(alpha.shape, generator=generator, device=alpha.device, dtype=alpha.dtype)
    logits = _safe_log(alpha, allowed) + beta * noise
    return masked_softmax(logits, allowed)


def exploration_log_prob(
    alpha_tilde: torch.Tensor, alpha: torch.Tensor, beta: float, allowed: torch.Tensor
) -> torch.Tensor:
    """log π(α̃ | s) per row (shape = alpha's without the last axis), up to a term in α̃ alone.

    = −‖centre(log α̃ − log α)‖² / (2β²) − (K−1)/2·log(2πβ²), centring over the K allowed entries.
    Differentiable in `alpha`; rows with fewer than two allowed senders have no choice and give 0.
    """
    allowed = allowed.expand_as(alpha)
    count = allowed.sum(dim=-1)
    diff = _safe_log(alpha_tilde.detach(), allowed) - _safe_log(alpha, allowed)
    mean = diff.sum(dim=-1, keepdim=True) / count.clamp(min=1).unsqueeze(-1)
    centred = torch.where(allowed, diff - mean, torch.zeros_like(diff))
    free = (count - 1).clamp(min=0).to(alpha.dtype)
    log_prob = -(centred**2).sum(dim=-1) / (2 * beta**2) - 0.5 * free * math.log(2 * math.pi * beta**2)
    return torch.where(count >= 2, log_prob, torch.zeros_like(log_prob))


def attention_entropy(weights: torch.Tensor, allowed: torch.Tensor | None = None) -> torch.Tensor:
    """Shannon entropy (nats) of each row of attention weights; uniform over K senders gives log K."""
    if allowed is not None:
        weights = weights * allowed
    return -(weights * torch.log(weights.clamp_min(1e-30))).sum(dim=-1)


def deliver(
    weights: torch.Tensor, threshold: float, allowed: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Drop messages whose weight is under `threshold`: returns (delivered weights, delivered mask).

    Dropped messages get weight 0 and are not re-normalised over: what the receiver does not hear
    does not reach it in any share.
    """
    delivered = (weights >= threshold) & allowed
    return weights * delivered, delivered


def communication_cost(delivered: torch.Tensor, message_cost: float) -> torch.Tensor:
    """Cost per episode: `message_cost` times the number of delivered messages (all receivers)."""
    return message_cost * delivered.flatten(start_dim=-2).sum(dim=-1).to(torch.float32)


def novelty_score(own: torch.Tensor, received: torch.Tensor) -> torch.Tensor:
    """Information novelty per agent in [0, 1]: (1 − cos(own state, received message)) / 2.

    The novelty bonus rewards receiving information that differs from what the agent already has; the trainer
    pays it only in episodes that succeeded, so noise that is merely different is not rewarded.
    """
    cosine = torch.nn.functional.cosine_similarity(own, received, dim=-1, eps=1e-8)
    return (1 - cosine) / 2


def consensus_score(vectors: torch.Tensor, receivers: torch.Tensor) -> torch.Tensor:
    """Agreement among receiving agents per episode: mean pairwise cosine of their received messages
    (`vectors` [B, N, d], `receivers` [N] bool). Fewer than two receivers: 1 (trivially agreed)."""
    chosen = vectors[:, receivers]
    n = chosen.shape[1]
    if n < 2:
        return torch.ones(vectors.shape[0], device=vectors.device)
    unit = torch.nn.functional.normalize(chosen, dim=-1)
    gram = unit @ unit.transpose(-1, -2)
    off_diagonal = gram.sum(dim=(-1, -2)) - gram.diagonal(dim1=-2, dim2=-1).sum(dim=-1)
    return off_diagonal / (n * (n - 1))


class CommAttention(nn.Module):
    """Who-listens-to-whom attention: α = softmax_j(W_Q h_i · W_K h_j / √d_k), self and disallowed
    links masked. Small linear maps independent of the backbone (only these train; docs/design.md#communication-attention).

    `forward(h, allowed)` takes hidden states `[B, N, dim]` and a `[N, N]` (or `[B, N, N]`) boolean
    link mask and returns α `[B, N, N]` (rows of agents that may hear nobody are all zero).
    """

    def __init__(self, dim: int, d_k: int = 32):
        super().__init__()
        self.d_k = d_k
        self.W_Q = nn.Linear(dim, d_k, bias=False)
        self.W_K = nn.Linear(dim, d_k, bias=False)
        # Queries start at zero: α starts exactly uniform (a broadcast), and W_Q still gets a gradient
        # (∝ k_j) while W_K's is zero until W_Q moves, so nothing is decided before learning says so.
        nn.init.zeros_(self.W_Q.weight)

    def scores(self, h: torch.Tensor, senders: torch.Tensor | None = None) -> torch.Tensor:
        """Unnormalised scores e_ij = q_i·k_j / √d_k, `[B, N, N]`. Keys come from `senders` when given:
        the senders' states as the receivers see them (e.g. rebuilt from compressed messages)."""
        q, k = self.W_Q(h), self.W_K(h if senders is None else senders)
        return q @ k.transpose(-1, -2) / math.sqrt(self.d_k)

    def forward(
        self, h: torch.Tensor, allowed: torch.Tensor, senders: torch.Tensor | None = None
    ) -> torch.Tensor:
        return masked_softmax(self.scores(h, senders), allowed.to(h.device))

    @staticmethod
    def aggregate(weights: torch.Tensor, messages: torch.Tensor) -> torch.Tensor:
        """Received messages m_i = Σ_j w_ij msg_j: `[B, N, N] @ [B, N, d] -> [B, N, d]`."""
        return weights @ messages
