"""MAPPO for agent teams: clipped PPO with GAE, a centralised critic, learned communication (docs/design.md#mappo).

Read top to bottom:

1. `MappoConfig` — every hyper-parameter.
2. PPO pieces — `compute_gae`, `ppo_clip_loss`, `ValueNorm`, `counterfactual_advantage`.
3. Networks — `TeamActor` (decentralised actors: each agent's observation embedding plus the messages it
   receives through `CommAttention`; three policy-sharing modes), `CentralCritic` (V_i(s) over the global
   state `env.state()`), `IndependentCritic` (V_i(o_i), for independent PPO), `CounterfactualCritic`
   (COMA's Q_i(s, a_-i, ·) for credit assignment).
4. `MappoTrainer` — rollouts on a PettingZoo `ParallelEnv`, the update, evaluation, checkpoints, resume.

Algorithms (`algorithm`):
- "mappo": centralised critic V_i(s) over `env.state()`, actors over o_i plus received messages.
- "ippo": independent PPO, the comparison baseline: each agent learns alone from its own observation
  with its own critic V_i(o_i), its own parameters, and no communication (docs/design.md#mappo).
With `counterfactual=True` the advantage of agent i is COMA's: Q_i(s, a) − Σ_a' π_i(a'|o_i) Q_i(s, (a_-i, a')),
"how much better was my action than my average action, the others' actions held fixed" (docs/design.md#counterfactual-baseline).
With `self_imitation` > 0 every training step also goes into the dual replay and, after the PPO epochs,
replayed steps whose return beat the critic are imitated (`training.self_imitation`).

Policy sharing (`sharing`, docs/design.md#policy-sharing): "independent" (each agent its own actor network), "lora"
(default: one shared actor trunk plus a per-agent low-rank adapter on each trunk layer and a per-agent
head — the same idea as the backbone's per-agent PEFT LoRA, applied to the policy network), "shared"
(one network for everyone, told apart by a learned role embedding).

Observations may be text (embedded by the frozen shared backbone, cached) or numeric vectors; the global
state likewise. Agents' action spaces must be `Discrete`; smaller ones are padded and masked.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.comm import CommAttention, allowed_links, masked_softmax
from agents.envs.customer_service.clauses import split_clauses
from training.events import EventStream
from training.replay import DualReplay, ReplayConfig
from training.self_imitation import remember, self_imitation_loss, stack


# ---------------------------------------------------------------------------------------------------------
# 1. Hyper-parameters
# ---------------------------------------------------------------------------------------------------------
@dataclass
class MappoConfig:
    """Hyper-parameters of one MAPPO / IPPO run."""

    algorithm: str = "mappo"  # "mappo" | "ippo"
    counterfactual: bool = False  # COMA-style counterfactual baseline for the advantage
    critic_input: str = "state"  # MAPPO critic: "state" (V_i(s)) | "state_and_obs" (V_i(s, o_i))
    sharing: str = "lora"  # "independent" | "lora" | "shared"
    comm: bool | None = None  # learned communication; None = on for mappo, off for ippo
    updates: int = 50  # training updates (each collects `episodes_per_update` episodes)
    episodes_per_update: int = 32
    epochs: int = 4  # PPO epochs over each batch
    minibatches: int = 2
    lr: float = 3e-3
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    value_clip: float | None = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    grad_clip: float = 1.0
    value_norm: bool = True
    hidden: int = 64
    lora_rank: int = 4
    msg_dim: int = 32
    d_k: int = 32
    explore_share: float = 0.5  # share of training episodes routing with noisy attention
    beta_start: float = 1.0
    beta_end: float = 0.05
    protocol: str | None = None  # "hcp": messages travel semantically compressed (agents.protocol.link)
    reader_hidden: int = 128  # clause reader (observations ending in a clause block): hidden width
    reader_outputs: int = 8  # clause reader: scores per clause, max-pooled over the clauses
    teacher_coef: float = 0.0  # weight of the behaviour-cloning loss on teacher samples (0 = off)
    teacher_fade_updates: int = (
        0  # the teacher's weight falls linearly to 0 over this many updates (0 = never)
    )
    self_imitation: float = 0.0  # weight of imitating replayed steps that beat the critic (0 = off)
    replay_capacity: int = 2048  # steps in the recent replay buffer; the elite buffer holds a quarter as many
    sil_minibatches: int = 4  # self-imitation minibatches after each update's PPO epochs
    sil_batch_size: int = 128  # replayed steps per self-imitation minibatch (half from the elite buffer)
    useful_eps: float = 0.05  # a student sample is "useful" when its advantage exceeds this
    eval_every: int = 10  # updates between validations (0 = never)
    eval_episodes: int = 64
    checkpoint_every: int = 10  # updates between checkpoints (0 = only at the end)
    cycle_updates: int = 5  # training updates per evolution cycle
    seed: int = 0
    threads: int = 1

    def __post_init__(self) -> None:
        if self.algorithm not in ("mappo", "ippo"):
            raise ValueError(f"training.algorithm must be 'mappo' or 'ippo', got {self.algorithm!r}")
        if self.sharing not in ("independent", "lora", "shared"):
            raise ValueError(f"sharing must be 'independent', 'lora' or 'shared', got {self.sharing!r}")
        if self.critic_input not in ("state", "state_and_obs"):
            raise ValueError(f"critic_input must be 'state' or 'state_and_obs', got {self.critic_input!r}")
        if self.comm is None:
            self.comm = self.algorithm == "mappo"
        if self.self_imitation < 0:
            raise ValueError(f"self_imitation must be >= 0, got {self.self_imitation}")
        if self.teacher_fade_updates < 0:
            raise ValueError(f"teacher_fade_updates must be >= 0, got {self.teacher_fade_updates}")
        names = ("updates", "episodes_per_update", "epochs", "minibatches", "hidden", "replay_capacity")
        for name in (*names, "sil_minibatches", "sil_batch_size"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> MappoConfig:
        """Build from a dict, rejecting unknown keys with their names."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise ValueError(f"unknown MAPPO setting(s) {unknown}; known: {sorted(known)}")
        return cls(**doc)


# ---------------------------------------------------------------------------------------------------------
# 2. PPO pieces
# ---------------------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------------------
# 3. Networks
# ---------------------------------------------------------------------------------------------------------
class TeamLoRALinear(nn.Module):
    """A linear layer shared by the team plus one low-rank update per agent: W x + B_i A_i x.

    B starts at zero, so every agent starts from the shared layer and specialises from there.
    """

    def __init__(self, n_agents: int, d_in: int, d_out: int, rank: int):
        super().__init__()
        self.base = nn.Linear(d_in, d_out)
        self.A = nn.Parameter(torch.randn(n_agents, d_in, rank) / math.sqrt(d_in))
        self.B = nn.Parameter(torch.zeros(n_agents, rank, d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: [B, N, d_in]
        delta = torch.einsum("bnd,ndr,nro->bno", x, self.A, self.B)
        return self.base(x) + delta


class PerAgentLinear(nn.Module):
    """N independent linear layers applied in one batched call: y_i = W_i x_i + b_i."""

    def __init__(self, n_agents: int, d_in: int, d_out: int, gain: float = math.sqrt(2)):
        super().__init__()
        w = torch.empty(n_agents, d_in, d_out)
        for i in range(n_agents):
            nn.init.orthogonal_(w[i], gain=gain)
        self.weight = nn.Parameter(w)
        self.bias = nn.Parameter(torch.zeros(n_agents, d_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # x: [B, N, d_in]
        return torch.einsum("bnd,ndo->bno", x, self.weight) + self.bias


class ClauseReader(nn.Module):
    """Each agent's own reader of a text cut into clauses: an MLP scores every clause, max over clauses.

    Input: the clause block that ends an observation ([K·D embeddings ‖ K mask], `Featurizer.clause_slots`);
    output: `outputs` scores in (0, 1) per agent — "does some clause ask for this?" (multiple-instance
    reading: a ticket has a request when one of its clauses does).
    """

    def __init__(self, n_agents: int, slots: int, dim: int, hidden: int, outputs: int):
        super().__init__()
        self.slots, self.dim = slots, dim
        self.l1 = PerAgentLinear(n_agents, dim, hidden)
        self.l2 = PerAgentLinear(n_agents, hidden, outputs, gain=1.0)

    @property
    def width(self) -> int:
        return self.slots * (self.dim + 1)

    def logits(self, block: torch.Tensor) -> torch.Tensor:
        """Max-pooled clause logits [B, N, outputs] from clause blocks [B, N, K·D + K]."""
        B, N = block.shape[:2]
        clauses = block[..., : self.slots * self.dim].reshape(B, N, self.slots, self.dim)
        mask = block[..., self.slots * self.dim :] > 0.5
        x = clauses.permute(0, 2, 1, 3).reshape(B * self.slots, N, self.dim)  # PerAgentLinear: [*, N, d]
        per_clause = self.l2(torch.relu(self.l1(x))).reshape(B, self.slots, N, -1).permute(0, 2, 1, 3)
        per_clause = per_clause.masked_fill(~mask.unsqueeze(-1), -1e4)
        return per_clause.max(dim=2).values

    def forward(self, block: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.logits(block))


class TeamActor(nn.Module):
    """Decentralised actors: agent i acts on its observation embedding o_i and its received message m_i.

    When observations end in a clause block (`clause_block` = (K, D)), each agent first reads it with its
    own `ClauseReader`; the actor then sees [the numeric fields ‖ the reader's scores].

    Communication (when on): h = tanh(W_h o) per agent; α = CommAttention(h) over allowed links (self
    masked); messages msg_j = W_msg h_j; m_i = Σ_j α_ij msg_j. During exploration episodes α is replaced
    by softmax(e + β·ε) with the step's stored Gaussian ε, so the update recomputes exactly the policy
    that acted.
    """

    def __init__(
        self,
        n_agents: int,
        obs_dim: int,
        n_actions: Sequence[int],
        cfg: MappoConfig,
        allowed: torch.Tensor | None = None,
        clause_block: tuple[int, int] | None = None,
    ):
        super().__init__()
        self.n_agents, self.sharing, self.use_comm = n_agents, cfg.sharing, bool(cfg.comm) and n_agents > 1
        self.reader = None
        if clause_block is not None:
            self.reader = ClauseReader(n_agents, *clause_block, cfg.reader_hidden, cfg.reader_outputs)
            obs_dim = obs_dim - self.reader.width + cfg.reader_outputs
        self.max_actions = max(n_actions)
        mask = torch.zeros(n_agents, self.max_actions, dtype=torch.bool)
        for i, n in enumerate(n_actions):
            mask[i, :n] = True
        self.register_buffer("action_mask", mask)
        allowed = ~torch.eye(n_agents, dtype=torch.bool) if allowed is None else allowed.bool()
        self.register_buffer("allowed", allowed)
        in_dim = obs_dim
        if self.use_comm:
            self.comm_proj = nn.Linear(obs_dim, cfg.hidden)
            self.comm = CommAttention(cfg.hidden, cfg.d_k)
            self.msg = nn.Linear(cfg.hidden, cfg.msg_dim)
            in_dim += cfg.msg_dim
        H = cfg.hidden
        if cfg.sharing == "independent":
            self.l1, self.l2 = PerAgentLinear(n_agents, in_dim, H), PerAgentLinear(n_agents, H, H)
            self.head = PerAgentLinear(n_agents, H, self.max_actions, gain=0.01)
        elif cfg.sharing == "lora":
            self.l1 = TeamLoRALinear(n_agents, in_dim, H, cfg.lora_rank)
            self.l2 = TeamLoRALinear(n_agents, H, H, cfg.lora_rank)
            self.head = PerAgentLinear(n_agents, H, self.max_actions, gain=0.01)
        else:  # shared: one network, the role embedding tells the agents apart
            self.role = nn.Embedding(n_agents, 16)
            self.l1, self.l2 = nn.Linear(in_dim + 16, H), nn.Linear(H, H)
            self.head = nn.Linear(H, self.max_actions)
            nn.init.orthogonal_(self.head.weight, gain=0.01)
            nn.init.zeros_(self.head.bias)

    def read(self, obs: torch.Tensor) -> torch.Tensor:
        """Observations as the actor layers see them: the clause block replaced by the reader's scores."""
        if self.reader is None:
            return obs
        cut = obs.shape[-1] - self.reader.width
        return torch.cat([obs[..., :cut], self.reader(obs[..., cut:])], dim=-1)

    def attention(
        self,
        obs: torch.Tensor,
        noise: torch.Tensor | None = None,
        beta: torch.Tensor | float = 0.0,
        heard: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(α [B, N, N], senders' h [B, N, H]) for observations [B, N, obs_dim]; noise [B, N, N] with β
        (per row). `heard`: the senders' observations as received (HCP reconstructions; None = exact):
        keys and messages come from it, queries from each agent's own observation."""
        h = torch.tanh(self.comm_proj(obs))
        if heard is not None:
            said = torch.tanh(self.comm_proj(heard))
            scores, h = self.comm.scores(h, said), said
        else:
            scores = self.comm.scores(h)
        if noise is not None:
            beta = torch.as_tensor(beta, dtype=scores.dtype)
            scores = scores + beta.reshape(-1, 1, 1) * noise if beta.dim() else scores + beta * noise
        return masked_softmax(scores, self.allowed.expand_as(scores)), h

    def forward(
        self,
        obs: torch.Tensor,
        noise: torch.Tensor | None = None,
        beta: torch.Tensor | float = 0.0,
        present: torch.Tensor | None = None,
        valid: torch.Tensor | None = None,
        heard: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Masked logits [B, N, A_max] and attention weights [B, N, N] (None without communication).

        Agents absent at a step (`present` False) neither send nor receive messages. `valid` [B, N, A_max]
        masks actions the environment declares invalid at that step (its `action_mask` observation).
        """
        alpha = None
        obs = self.read(obs)
        x = obs
        if self.use_comm:
            alpha, h = self.attention(obs, noise, beta, None if heard is None else self.read(heard))
            if present is not None:
                alpha = alpha * present.unsqueeze(-2).to(alpha.dtype)  # absent senders say nothing
            received = CommAttention.aggregate(alpha, self.msg(h))
            x = torch.cat([obs, received], dim=-1)
        if self.sharing == "shared":
            roles = self.role.weight.unsqueeze(0).expand(x.shape[0], -1, -1)
            x = torch.cat([x, roles], dim=-1)
        z = torch.tanh(self.l2(torch.tanh(self.l1(x))))
        logits = self.head(z)
        mask = self.action_mask if valid is None else self.action_mask & valid
        return logits.masked_fill(~mask, -1e9), alpha

    def agent_parameters(self, i: int) -> list[tuple[nn.Parameter, int]]:
        """(parameter, agent slice index) pairs that belong to agent i alone (for update periods)."""
        own = []
        readers = (self.reader.l1, self.reader.l2) if self.reader is not None else ()
        for module in (self.l1, self.l2, self.head, *readers):
            if isinstance(module, PerAgentLinear):
                own += [(module.weight, i), (module.bias, i)]
            elif isinstance(module, TeamLoRALinear):
                own += [(module.A, i), (module.B, i)]
        return own


class CentralCritic(nn.Module):
    """V_i for every agent from the global state (MAPPO's centralised critic).

    `agent_obs` (the "agent-specific global state" of the MAPPO paper): V_i reads [s ‖ o_i], so the value
    can depend on what agent i actually saw — a cut or stale observation predicts a worse outcome than the
    clean state alone shows.
    """

    def __init__(self, state_dim: int, n_agents: int, hidden: int, obs_dim: int = 0):
        super().__init__()
        self.agent_obs = obs_dim > 0
        in_dim = state_dim + obs_dim + (n_agents if self.agent_obs else 0)
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, 1 if self.agent_obs else n_agents),
        )

    def forward(self, state: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:  # -> [B, N]
        if not self.agent_obs:
            return self.net(state)
        B, N = obs.shape[:2]
        ident = torch.eye(N, dtype=obs.dtype).expand(B, N, N)
        x = torch.cat([state.unsqueeze(1).expand(B, N, state.shape[-1]), obs, ident], dim=-1)
        return self.net(x).squeeze(-1)


class IndependentCritic(nn.Module):
    """V_i(o_i): each agent's own critic over its own observation (independent PPO)."""

    def __init__(self, obs_dim: int, n_agents: int, hidden: int):
        super().__init__()
        self.l1 = PerAgentLinear(n_agents, obs_dim, hidden)
        self.l2 = PerAgentLinear(n_agents, hidden, hidden)
        self.out = PerAgentLinear(n_agents, hidden, 1, gain=1.0)

    def forward(self, state: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
        return self.out(torch.tanh(self.l2(torch.tanh(self.l1(obs))))).squeeze(-1)


class CounterfactualCritic(nn.Module):
    """COMA's critic: Q_i(s, a_-i, ·) — agent i's Q for each own action, the others' actions as inputs."""

    def __init__(self, state_dim: int, n_agents: int, max_actions: int, hidden: int):
        super().__init__()
        self.n_agents, self.max_actions = n_agents, max_actions
        in_dim = state_dim + n_agents * max_actions + n_agents
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, max_actions),
        )

    def forward(self, state: torch.Tensor, actions: torch.Tensor, present: torch.Tensor) -> torch.Tensor:
        """Q [B, N, A_max]: state [B, S], actions [B, N] (long), present [B, N] (absent agents' actions hidden)."""
        B, N = actions.shape
        onehot = nn.functional.one_hot(actions.clamp(min=0), self.max_actions).float() * present.unsqueeze(-1)
        others = onehot.unsqueeze(1).expand(B, N, N, self.max_actions).clone()
        others[:, torch.arange(N), torch.arange(N)] = 0.0  # agent i does not see its own action
        ident = torch.eye(N).unsqueeze(0).expand(B, N, N)
        x = torch.cat(
            [state.unsqueeze(1).expand(B, N, state.shape[-1]), others.reshape(B, N, -1), ident], dim=-1
        )
        return self.net(x)


# ---------------------------------------------------------------------------------------------------------
# 4. The trainer
# ---------------------------------------------------------------------------------------------------------
class CheckpointError(ValueError):
    """A checkpoint cannot be used to resume; the message says why."""


class Featurizer:
    """Turns observations and states into float vectors, caching text embeddings.

    - text goes through the frozen shared backbone (`Backbone.encode`, which caches per text); with
      `clauses=True` a text becomes [embedding of the whole text ‖ element-wise max over the embeddings of
      its clauses], so a ticket with two requests keeps both visible instead of averaging them away;
      with `clause_slots=K` a text becomes K clause embeddings (zero-padded) followed by a K-long mask,
      placed after every numeric field, for an actor that scores each clause itself (`clause_block`);
      with `char_ngrams=K` hashed character 3–4-gram counts (K buckets) are appended — surface cues
      (typos, product words) that a small frozen sentence encoder smooths over;
    - numbers and arrays pass through, flattened;
    - a dict (e.g. a PettingZoo Dict observation) is the concatenation of its fields in key order, minus
      the keys in `skip` (by default `action_mask`, which masks the policy instead of feeding it);
    - `None` (an agent with no observation this step) becomes zeros.
    """

    def __init__(
        self,
        backbone: Any | None = None,
        skip: Sequence[str] = (),
        clauses: bool = False,
        cache_file: str | Path | None = None,
        char_ngrams: int = 0,
        clause_slots: int = 0,
    ):
        self.backbone = backbone
        self.clause_slots = int(clause_slots)
        self.char_ngrams = int(char_ngrams)
        self._hasher = None
        self.skip = set(skip)
        self.clauses = clauses
        self._text_cache: dict[str, torch.Tensor] = {}
        self.cache_file = Path(cache_file) if cache_file is not None else None
        if self.cache_file is not None and self.cache_file.is_file():
            self._load_cache()

    def _ngrams(self, text: str) -> torch.Tensor:
        """Hashed, L2-normalised character 3–4-gram counts of a text (`char_ngrams` buckets)."""
        if self._hasher is None:
            from sklearn.feature_extraction.text import HashingVectorizer

            self._hasher = HashingVectorizer(
                n_features=self.char_ngrams,
                analyzer="char_wb",
                ngram_range=(3, 4),
                alternate_sign=False,
                norm="l2",
            )
        return torch.as_tensor(self._hasher.transform([text]).toarray()[0], dtype=torch.float32)

    def _cache_tag(self) -> str:
        name = getattr(self.backbone, "name", "none")
        return f"{name}|clauses={self.clauses}|slots={self.clause_slots}|split=2"

    def _load_cache(self) -> None:
        from safetensors import safe_open

        try:
            with safe_open(str(self.cache_file), framework="pt") as f:
                meta = f.metadata() or {}
                if meta.get("tag") != self._cache_tag():
                    return  # made with another backbone or feature layout: ignore, rebuild
                texts = json.loads(meta["texts"])
                matrix = f.get_tensor("vectors")
        except Exception:  # a damaged cache is only a cache: start over
            return
        self._text_cache.update(zip(texts, matrix, strict=True))

    def save_cache(self) -> None:
        """Write the text vectors to `cache_file` (safetensors) so the next run skips the backbone."""
        if self.cache_file is None or not self._text_cache:
            return
        from safetensors.torch import save_file

        texts = list(self._text_cache)
        self.cache_file.parent.mkdir(parents=True, exist_ok=True)
        # write then rename: a concurrent reader never sees half a file
        tmp = self.cache_file.with_name(f"{self.cache_file.name}.{os.getpid()}.tmp")
        save_file(
            {"vectors": torch.stack([self._text_cache[t] for t in texts]).contiguous()},
            str(tmp),
            metadata={"tag": self._cache_tag(), "texts": json.dumps(texts)},
        )
        os.replace(tmp, self.cache_file)

    @property
    def clause_block(self) -> tuple[int, int] | None:
        """(K slots, embedding size) of the clause block that ends each observation, or None."""
        if not self.clause_slots or self.backbone is None:
            return None
        return self.clause_slots, int(self.backbone.dim)

    def _clause_block(self, texts: Sequence[str]) -> list[torch.Tensor]:
        """[K·dim clause embeddings ‖ K mask] per text: the clauses of every text embedded in one call."""
        k = self.clause_slots
        pieces = [split_clauses(t, limit=k) for t in texts]
        flat = self.backbone.encode([p for ps in pieces for p in ps]).float()
        out, start = [], 0
        for ps in pieces:
            block = torch.zeros(k, flat.shape[1])
            block[: len(ps)] = flat[start : start + len(ps)]
            start += len(ps)
            mask = torch.zeros(k)
            mask[: len(ps)] = 1.0
            out.append(torch.cat([block.flatten(), mask]))
        return out

    def text(self, texts: Sequence[str]) -> torch.Tensor:
        """Vectors for texts ([len, dim], [len, 2·dim] with clauses, the clause block with slots), memoised."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._text_cache]
        if missing:
            if self.backbone is None:
                raise ValueError(
                    "text observations need a backbone (agents.backbone.Backbone.load('default'))"
                )
            with torch.no_grad():
                if self.clause_slots:
                    for start in range(0, len(missing), 256):
                        chunk = missing[start : start + 256]
                        self._text_cache.update(zip(chunk, self._clause_block(chunk), strict=True))
                    return torch.stack([self._text_cache[t] for t in texts])
                whole = self.backbone.encode(missing).float()
                if self.clauses:
                    pieces = [split_clauses(t) for t in missing]
                    flat = self.backbone.encode([p for ps in pieces for p in ps]).float()
                    start = 0
                    for i, ps in enumerate(pieces):
                        clause_max = flat[start : start + len(ps)].max(0).values
                        start += len(ps)
                        self._text_cache[missing[i]] = torch.cat([whole[i], clause_max])
                else:
                    for i, t in enumerate(missing):
                        self._text_cache[t] = whole[i]
        return torch.stack([self._text_cache[t] for t in texts])

    def _one(self, x: Any) -> torch.Tensor | None:
        if x is None:
            return None
        if isinstance(x, str):
            if self.backbone is None and self.char_ngrams:
                return self._ngrams(x)  # surface features only: no backbone needed (tests, tiny setups)
            vec = self.text([x])[0]
            return torch.cat([vec, self._ngrams(x)]) if self.char_ngrams else vec
        if isinstance(x, Mapping):
            keys = [k for k in sorted(x) if k not in self.skip]
            if self.clause_slots:  # the clause block ends the vector (`clause_block`)
                keys.sort(key=lambda k: isinstance(x[k], str))
            parts = [self._one(x[k]) for k in keys]
            return torch.cat([p for p in parts if p is not None])
        return torch.as_tensor(np.asarray(x, dtype=np.float32)).flatten()

    def __call__(self, items: Sequence[Any], width: int | None = None) -> torch.Tensor:
        """[len(items), width] features; rows are zero-padded to `width` (default: the widest row)."""
        texts = [x for x in items if isinstance(x, str)]
        if texts and self.backbone is not None:
            self.text(texts)  # one batched backbone call for the whole step
        rows = [self._one(x) for x in items]
        # agents' observations may differ in size (e.g. their own fields): pad to a common width
        width = max([width or 0] + [r.shape[0] for r in rows if r is not None])
        return torch.stack(
            [torch.zeros(width) if r is None else nn.functional.pad(r, (0, width - r.shape[0])) for r in rows]
        )


@dataclass
class Batch:
    """One update's experience: T steps (from whole episodes) × N agents."""

    obs: torch.Tensor  # [T, N, D]
    state: torch.Tensor  # [T, S]
    present: torch.Tensor  # [T, N] bool
    valid: torch.Tensor  # [T, N, A_max] bool: actions the env allowed
    actions: torch.Tensor  # [T, N] long
    logp: torch.Tensor  # [T, N]
    noise: torch.Tensor  # [T, N, N]
    beta: torch.Tensor  # [T]
    rewards: torch.Tensor  # [T, N]
    dones: torch.Tensor  # [T]
    teacher_actions: torch.Tensor  # [T, N] long, −1 where no teacher sample
    heard: torch.Tensor | None = None  # [T, N, D] observations as the HCP link delivered them


@dataclass
class EpisodeResult:
    """What one episode produced, for metrics."""

    ret: float
    steps: int
    messages: float
    info: dict[str, Any] = field(default_factory=dict)


def _as_action_count(space: Any) -> int:
    n = getattr(space, "n", None)
    if n is None:
        raise ValueError(f"MAPPO needs Discrete action spaces, got {space!r}")
    return int(n)


class MappoTrainer:
    """Trains a team on a PettingZoo ParallelEnv with MAPPO or independent PPO.

    `env_fn(split)` makes an environment for "train" or "validation" (the same env for both is fine).
    `reward_fn(agent, env_reward, info, extras) -> float` may reshape the environment's reward (the
    reward composer plugs in here); by default the env reward is used. `teacher(agent, obs, info) -> action`
    enables teacher–student augmentation. `success_fn(info) -> bool` reads an episode's success from its
    last info (for curriculum and metrics). `messages_fn(infos, delivered)` counts messages of a step.
    `curriculum` (an `AdaptiveCurriculum`) passes its level to `env.reset` as `{"difficulty": level}`;
    `replay` (a `DualReplay`, made from the config when `self_imitation` > 0) keeps every training step.
    """

    def __init__(
        self,
        env_fn: Callable[[str], Any],
        config: MappoConfig | None = None,
        backbone: Any | None = None,
        events: EventStream | None = None,
        reward_fn: Callable[..., float] | None = None,
        teacher: Callable[[str, Any, dict], int] | None = None,
        success_fn: Callable[[dict], float] | None = None,
        allowed_links: torch.Tensor | None = None,
        delivery_threshold: float = 0.05,
        update_periods: Mapping[str, int] | None = None,
        scheduler: Any | None = None,
        golden: Any | None = None,
        curriculum: Any | None = None,
        replay: Any | None = None,
        featurizer: Featurizer | None = None,
    ):
        self.cfg = config or MappoConfig()
        torch.manual_seed(self.cfg.seed)
        self.rng = random.Random(self.cfg.seed)
        self.np_rng = np.random.default_rng(self.cfg.seed)
        self.env_fn = env_fn
        self.env = env_fn("train")
        self.events = events or EventStream()
        self.reward_fn = reward_fn
        self.teacher = teacher
        self.success_fn = success_fn
        self.delivery_threshold = delivery_threshold
        self.update_periods = dict(update_periods or {})
        self.scheduler, self.golden, self.curriculum = scheduler, golden, curriculum
        if replay is None and self.cfg.self_imitation > 0:
            capacity = self.cfg.replay_capacity
            replay = DualReplay(
                ReplayConfig(recent_capacity=capacity, elite_capacity=max(1, capacity // 4)),
                seed=self.cfg.seed,
            )
        self.replay = replay
        self.featurize = featurizer or Featurizer(backbone)
        self.agents = list(self.env.possible_agents)
        self.n = len(self.agents)
        self.n_actions = [_as_action_count(self.env.action_space(a)) for a in self.agents]

        # probe the dimensions with one reset
        obs, _ = self.env.reset(seed=self.cfg.seed)
        self.obs_dim = self.featurize([obs.get(a) for a in self.agents]).shape[1]
        self.state_dim = self.featurize([self.env.state()]).shape[1]
        self.actor = TeamActor(
            self.n,
            self.obs_dim,
            self.n_actions,
            self.cfg,
            allowed_links,
            clause_block=getattr(self.featurize, "clause_block", None),
        )
        if self.cfg.algorithm == "mappo":
            obs_dim = self.obs_dim if self.cfg.critic_input == "state_and_obs" else 0
            self.critic: nn.Module = CentralCritic(self.state_dim, self.n, self.cfg.hidden, obs_dim)
        else:
            self.critic = IndependentCritic(self.obs_dim, self.n, self.cfg.hidden)
        self.q_critic = (
            CounterfactualCritic(self.state_dim, self.n, self.actor.max_actions, self.cfg.hidden)
            if self.cfg.counterfactual
            else None
        )
        from agents.protocol.link import make_link

        # communication.protocol = "hcp": every message crosses a semantically compressed link
        self.link = make_link(
            self.cfg.protocol if self.actor.use_comm else None, self.events, self.agents, seed=self.cfg.seed
        )
        self.value_norm = ValueNorm((self.n,)) if self.cfg.value_norm else None
        self.q_norm = ValueNorm(()) if (self.cfg.value_norm and self.q_critic is not None) else None
        params = list(self.actor.parameters()) + list(self.critic.parameters())
        if self.q_critic is not None:
            params += list(self.q_critic.parameters())
        self.optimizer = torch.optim.Adam(params, lr=self.cfg.lr, eps=1e-5)
        self.update_index = 0
        self.episodes_done = 0
        self.episode_prefix = "episode/"  # human-feedback keys are f"{episode_prefix}{episode number}"
        self.train_seconds = 0.0
        self.best_score: float | None = None
        self.history: list[dict[str, Any]] = []
        self._last_update_time: float | None = None

    # ---- acting -------------------------------------------------------------------------------------
    def _beta(self) -> float:
        frac = min(1.0, self.update_index / max(1, self.cfg.updates - 1))
        return self.cfg.beta_start + frac * (self.cfg.beta_end - self.cfg.beta_start)

    def _values(self, obs: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        v = self.critic(state, obs)
        return self.value_norm.denormalize(v) if self.value_norm is not None else v

    def run_episode(
        self,
        greedy: bool = False,
        explore: bool = False,
        seed: int | None = None,
        options: dict | None = None,
        record: list | None = None,
    ) -> EpisodeResult:
        """Play one episode; append per-step records to `record` when training."""
        env = self.env
        obs, infos = env.reset(seed=seed, options=options)
        ret, steps, messages = 0.0, 0, 0.0
        last_info: dict[str, Any] = {}
        beta = self._beta() if explore else 0.0
        while env.agents:
            present = torch.tensor([a in env.agents and obs.get(a) is not None for a in self.agents])
            o = self.featurize([obs.get(a) if a in env.agents else None for a in self.agents], self.obs_dim)
            s = self.featurize_state(env.state())
            valid = self.valid_actions(obs)
            noise = torch.randn(self.n, self.n) if explore else torch.zeros(self.n, self.n)
            heard = self.hear(o, present, obs)
            with torch.no_grad():
                logits, alpha = self.actor(
                    o.unsqueeze(0),
                    noise.unsqueeze(0) if explore else None,
                    beta,
                    present.unsqueeze(0),
                    valid.unsqueeze(0),
                    None if heard is None else heard.unsqueeze(0),
                )
                dist = torch.distributions.Categorical(logits=logits[0])
                act = logits[0].argmax(-1) if greedy else dist.sample()
                logp = dist.log_prob(act)
            actions = {a: int(act[i]) for i, a in enumerate(self.agents) if present[i]}
            teacher_actions = torch.full((self.n,), -1, dtype=torch.long)
            if record is not None and self.teacher is not None and self.teacher_weight() > 0:
                for i, a in enumerate(self.agents):
                    if present[i]:
                        t_act = self.teacher(
                            a, obs.get(a), infos.get(a, {}) if isinstance(infos, dict) else {}
                        )
                        if t_act is not None and int(t_act) != actions[a]:
                            teacher_actions[i] = int(t_act)
            delivered = 0.0
            if alpha is not None:
                delivered = float(
                    (
                        (alpha[0] >= self.delivery_threshold) & present.unsqueeze(0) & present.unsqueeze(1)
                    ).sum()
                )
            obs, rewards, terms, truncs, infos = env.step(actions)
            info_any = next(iter(infos.values()), {}) if infos else {}
            step_messages = info_any.get("messages_step", None)
            messages += float(step_messages) if step_messages is not None else delivered
            done = not env.agents or all(terms.get(a, False) or truncs.get(a, False) for a in actions)
            r = torch.zeros(self.n)
            entropy = dist.entropy()
            for i, a in enumerate(self.agents):
                if a in rewards:
                    base = float(rewards[a])
                    if self.reward_fn is not None:
                        # what the reward composer may weigh besides the env reward (see run_spec)
                        extras = {
                            "delivered": delivered,
                            "entropy": float(entropy[i]),
                            "done": done,
                            "episode_key": f"{self.episode_prefix}{self.episodes_done}",
                        }
                        base = self.reward_fn(a, base, infos.get(a, {}), extras)
                    r[i] = base
            if record is not None:
                record.append(
                    (o, s, present, valid, act, logp, noise, beta, r, float(done), teacher_actions, heard)
                )
            ret += float(r[present].mean()) if present.any() else 0.0
            steps += 1
            if infos:
                last_info = dict(info_any)
            if done:
                break
        if "messages" in last_info and isinstance(last_info["messages"], (int, float)):
            messages = float(last_info["messages"])
        return EpisodeResult(ret, steps, messages, last_info)

    def hear(
        self, o: torch.Tensor, present: torch.Tensor, observations: Mapping[str, Any]
    ) -> torch.Tensor | None:
        """One step's observations [N, D] as the other agents receive them over the HCP link (None
        without one): each present agent that may be heard sends its observation as one frame."""
        if self.link is None:
            return None
        from agents.protocol.link import raw_message_bytes

        send = (present & self.actor.allowed.any(0)).numpy()
        raw = np.array([raw_message_bytes(observations.get(a)) for a in self.agents])
        return torch.as_tensor(self.link.transmit(o.unsqueeze(0).numpy(), send, raw)[0])

    def valid_actions(self, observations: Mapping[str, Any]) -> torch.Tensor:
        """[N, A_max] bool from each agent's `action_mask` observation field (all valid when absent)."""
        valid = torch.ones(self.n, self.actor.max_actions, dtype=torch.bool)
        for i, a in enumerate(self.agents):
            o = observations.get(a)
            if isinstance(o, Mapping) and "action_mask" in o:
                m = torch.as_tensor(np.asarray(o["action_mask"], dtype=bool))
                valid[i, : m.shape[0]] = m
        return valid

    def featurize_state(self, state: Any) -> torch.Tensor:
        if isinstance(state, torch.Tensor):
            return state.float().flatten()
        return self.featurize([state], getattr(self, "state_dim", None))[0]

    def collect(self) -> tuple[Batch, list[EpisodeResult]]:
        """Play `episodes_per_update` training episodes with the current policy."""
        record: list = []
        results = []
        for _ in range(self.cfg.episodes_per_update):
            explore = bool(self.cfg.comm) and self.rng.random() < self.cfg.explore_share
            options = self.episode_options()
            results.append(
                self.run_episode(
                    explore=explore, seed=self.rng.randrange(2**31), options=options, record=record
                )
            )
            self.episodes_done += 1
            if self.curriculum is not None and self.success_fn is not None:
                self.curriculum.record(bool(self.success_fn(results[-1].info)))
        cols = list(zip(*record, strict=True))
        batch = Batch(
            obs=torch.stack(cols[0]),
            state=torch.stack(cols[1]),
            present=torch.stack(cols[2]),
            valid=torch.stack(cols[3]),
            actions=torch.stack(cols[4]),
            logp=torch.stack(cols[5]),
            noise=torch.stack(cols[6]),
            beta=torch.tensor(cols[7], dtype=torch.float32),
            rewards=torch.stack(cols[8]),
            dones=torch.tensor(cols[9]),
            teacher_actions=torch.stack(cols[10]),
            heard=torch.stack(cols[11]) if self.link is not None else None,
        )
        return batch, results

    def episode_options(self) -> dict | None:
        """Reset options for a training episode (the curriculum's difficulty level, when one is attached)."""
        if self.curriculum is not None:
            return {"difficulty": self.curriculum.level}
        return None

    # ---- learning -----------------------------------------------------------------------------------
    def advantages(self, b: Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """(advantages [T, N], value targets [T, N], Q targets [T, N] or None)."""
        with torch.no_grad():
            values = self._values(b.obs, b.state)
            adv, returns = compute_gae(b.rewards, values, b.dones, self.cfg.gamma, self.cfg.gae_lambda)
            q_targets = None
            if self.q_critic is not None:
                q = self.q_critic(b.state, b.actions, b.present)
                if self.q_norm is not None:
                    q = self.q_norm.denormalize(q)
                logits, _ = self.actor(b.obs, b.noise, b.beta, b.present, b.valid, b.heard)
                probs = torch.softmax(logits, -1)
                # Q is regressed to the same λ-returns the value critic learns from; its counterfactual
                # baseline replaces V as the reference point of each agent's action.
                adv = counterfactual_advantage(q, probs, b.actions)
                q_targets = returns
        return adv, returns, q_targets

    def update(self, b: Batch) -> dict[str, float]:
        """PPO epochs over minibatches of the batch; returns loss statistics."""
        adv, returns, q_targets = self.advantages(b)
        mask = b.present
        teacher_weight = self.teacher_weight()
        useful_student = float(((adv > self.cfg.useful_eps) & mask).sum())
        flat = adv[mask]
        adv_n = (adv - flat.mean()) / (flat.std() + 1e-8) if flat.numel() > 1 else adv
        with torch.no_grad():  # before the value statistics move: the critic's prediction of these returns
            critic_fit = explained_variance(self._values(b.obs, b.state)[mask], returns[mask])
        if self.value_norm is not None:
            self.value_norm.update(returns, mask)
        if self.q_norm is not None:
            self.q_norm.update(q_targets[mask])
        with torch.no_grad():
            old_v = self.critic(b.state, b.obs)
        targets_n = self.value_norm.normalize(returns) if self.value_norm is not None else returns
        q_targets_n = (
            self.q_norm.normalize(q_targets)
            if (self.q_norm is not None and q_targets is not None)
            else q_targets
        )
        updating = torch.tensor(
            [self.update_index % int(self.update_periods.get(a, 1)) == 0 for a in self.agents]
        )
        T = b.obs.shape[0]
        stats: dict[str, list[float]] = {
            "policy_loss": [],
            "value_loss": [],
            "entropy": [],
            "clip_frac": [],
            "teacher_loss": [],
        }
        for _ in range(self.cfg.epochs):
            perm = torch.randperm(T)
            for idx in perm.chunk(self.cfg.minibatches):
                m = mask[idx] & updating
                heard = b.heard[idx] if b.heard is not None else None
                logits, _ = self.actor(
                    b.obs[idx], b.noise[idx], b.beta[idx], b.present[idx], b.valid[idx], heard
                )
                dist = torch.distributions.Categorical(logits=logits)
                new_logp = dist.log_prob(b.actions[idx])
                pl = ppo_clip_loss(new_logp, b.logp[idx], adv_n[idx], self.cfg.clip, m)
                ent = (dist.entropy() * m).sum() / m.sum().clamp(min=1)
                v = self.critic(b.state[idx], b.obs[idx])
                vm = mask[idx].float()
                v_loss = (v - targets_n[idx]) ** 2
                if self.cfg.value_clip is not None:
                    v_clipped = old_v[idx] + (v - old_v[idx]).clamp(-self.cfg.value_clip, self.cfg.value_clip)
                    v_loss = torch.maximum(v_loss, (v_clipped - targets_n[idx]) ** 2)
                vl = (v_loss * vm).sum() / vm.sum().clamp(min=1)
                loss = pl + self.cfg.value_coef * vl - self.cfg.entropy_coef * ent
                if self.q_critic is not None:
                    q = self.q_critic(b.state[idx], b.actions[idx], b.present[idx])
                    q_taken = q.gather(-1, b.actions[idx].unsqueeze(-1)).squeeze(-1)
                    ql = ((q_taken - q_targets_n[idx]) ** 2 * vm).sum() / vm.sum().clamp(min=1)
                    loss = loss + self.cfg.value_coef * ql
                tl = torch.zeros(())
                t_act = b.teacher_actions[idx]
                t_mask = (t_act >= 0) & m
                if teacher_weight > 0 and t_mask.any():
                    t_logp = (
                        torch.log_softmax(logits, -1).gather(-1, t_act.clamp(min=0).unsqueeze(-1)).squeeze(-1)
                    )
                    tl = -(t_logp * t_mask).sum() / t_mask.sum()
                    loss = loss + teacher_weight * tl
                self.optimizer.zero_grad()
                loss.backward()
                self._freeze_resting_agents(updating)
                nn.utils.clip_grad_norm_(
                    [p for g in self.optimizer.param_groups for p in g["params"]], self.cfg.grad_clip
                )
                self.optimizer.step()
                with torch.no_grad():
                    clip_frac = (
                        (((new_logp - b.logp[idx]).abs() > math.log(1 + self.cfg.clip)) & m).float().sum()
                    )
                stats["policy_loss"].append(float(pl.detach()))
                stats["value_loss"].append(float(vl.detach()))
                stats["entropy"].append(float(ent.detach()))
                stats["clip_frac"].append(float(clip_frac / m.sum().clamp(min=1)))
                stats["teacher_loss"].append(float(tl.detach()))
        if self.cfg.self_imitation > 0 and self.replay is not None and len(self.replay):
            stats |= self.self_imitate(updating)
        n_student = float(mask.sum())
        n_teacher = float(((b.teacher_actions >= 0) & mask).sum()) if teacher_weight > 0 else 0.0
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        out["explained_variance"] = critic_fit
        out["useful_share_student"] = useful_student / max(n_student, 1.0)
        # teacher samples are corrections the student needed: each one is useful by construction
        out["useful_share"] = (useful_student + n_teacher) / max(n_student + n_teacher, 1.0)
        out["teacher_samples"] = n_teacher
        out["updating_agents"] = float(updating.sum())
        return out

    def teacher_weight(self) -> float:
        """`teacher_coef`, faded linearly to 0 over the first `teacher_fade_updates` updates: a teacher speeds
        the start and, kept at full weight, holds the student at the teacher's level (docs/decisions/0008-teacher-fade-out.md)."""
        if self.teacher is None:
            return 0.0
        fade = self.cfg.teacher_fade_updates
        return self.cfg.teacher_coef * (max(0.0, 1.0 - self.update_index / fade) if fade > 0 else 1.0)

    def self_imitate(self, updating: torch.Tensor) -> dict[str, list[float]]:
        """Replayed steps imitated where their return beat the critic (`training.self_imitation`)."""
        losses, better = [], []
        for _ in range(self.cfg.sil_minibatches):
            s = stack(self.replay.sample(self.cfg.sil_batch_size))
            logits, _ = self.actor(s["obs"], s["noise"], s["beta"], s["present"], s["valid"], s["heard"])
            log_probs = torch.distributions.Categorical(logits=logits).log_prob(s["actions"])
            returns = s["returns"] if self.value_norm is None else self.value_norm.normalize(s["returns"])
            loss, share = self_imitation_loss(
                log_probs,
                self.critic(s["state"], s["obs"]),
                returns,
                s["present"] & updating,
                self.cfg.value_coef,
            )
            self.optimizer.zero_grad()
            (self.cfg.self_imitation * loss).backward()
            self._freeze_resting_agents(updating)
            nn.utils.clip_grad_norm_(
                [p for g in self.optimizer.param_groups for p in g["params"]], self.cfg.grad_clip
            )
            self.optimizer.step()
            losses.append(float(loss.detach()))
            better.append(share)
        return {"sil_loss": losses, "sil_better_share": better}

    def _freeze_resting_agents(self, updating: torch.Tensor) -> None:
        """Agents outside their update period keep their own parameters this update (docs/design.md#update-periods)."""
        if bool(updating.all()):
            return
        for i in range(self.n):
            if not updating[i]:
                for p, j in self.actor.agent_parameters(i):
                    if p.grad is not None:
                        p.grad[j] = 0.0

    # ---- evaluation ---------------------------------------------------------------------------------
    def evaluate(self, split: str = "validation", episodes: int | None = None, seed: int = 10_000) -> dict:
        """Greedy episodes on `split`; mean return, steps, messages and the env's own metrics."""
        env_train = self.env
        self.env = self.env_fn(split)
        try:
            n = episodes or self.cfg.eval_episodes
            res = [self.run_episode(greedy=True, seed=seed + k) for k in range(n)]
        finally:
            self.env = env_train
        out = {
            "return": float(np.mean([r.ret for r in res])),
            "steps": float(np.mean([r.steps for r in res])),
            "messages": float(np.mean([r.messages for r in res])),
        }
        if self.success_fn is not None:
            out["success"] = float(np.mean([float(self.success_fn(r.info)) for r in res]))
        return out

    def policy(self, greedy: bool = True) -> Callable[[Mapping[str, Any]], dict[str, int]]:
        """The trained team as a plain function: {agent: observation} -> {agent: action} (for runtimes)."""

        def act(observations: Mapping[str, Any]) -> dict[str, int]:
            present = torch.tensor([a in observations for a in self.agents])
            o = self.featurize([observations.get(a) for a in self.agents], self.obs_dim)
            with torch.no_grad():
                logits, _ = self.actor(
                    o.unsqueeze(0),
                    None,
                    0.0,
                    present.unsqueeze(0),
                    self.valid_actions(observations).unsqueeze(0),
                )
            chosen = (
                logits[0].argmax(-1) if greedy else torch.distributions.Categorical(logits=logits[0]).sample()
            )
            return {a: int(chosen[i]) for i, a in enumerate(self.agents) if a in observations}

        return act

    def act_probs(self, observations: Sequence[Any]) -> torch.Tensor:
        """Each agent's action distribution [N, A_max] for one joint observation (for diversity, probes)."""
        o = self.featurize(list(observations), self.obs_dim)
        with torch.no_grad():
            logits, _ = self.actor(o.unsqueeze(0))
        return torch.softmax(logits[0], -1)

    # ---- the loop -----------------------------------------------------------------------------------
    def train(
        self,
        should_stop: Callable[[], bool] = lambda: False,
        checkpoint_dir: str | Path | None = None,
        resume_from: str | Path | None = None,
        progress: Callable[[int, dict], None] | None = None,
    ) -> dict[str, Any]:
        """Run the updates; emits started / metrics / phase / plateau / checkpoint / finished events.

        Stops early (with a checkpoint, status "cancelled") when `should_stop()` returns True.
        """
        resumed = None
        if resume_from is not None:
            resumed = self.load_checkpoint(resume_from)
        self.events.emit(
            "started",
            resumed_from=resumed,
            algorithm=self.cfg.algorithm,
            counterfactual=self.cfg.counterfactual,
            sharing=self.cfg.sharing,
            agents=self.agents,
        )
        status = "succeeded"
        last_metrics: dict[str, Any] = {}
        while self.update_index < self.cfg.updates:
            if should_stop():
                status = "cancelled"
                break
            t0 = time.perf_counter()
            batch, results = self.collect()
            if self.replay is not None:
                remember(self.replay, batch, [r.ret for r in results], self.cfg.gamma)
            stats = self.update(batch)
            elapsed = time.perf_counter() - t0
            self.train_seconds += elapsed
            self.update_index += 1
            metrics = {
                "step": self.update_index,
                "episode": self.episodes_done,
                "return": float(np.mean([r.ret for r in results])),
                "steps_per_episode": float(np.mean([r.steps for r in results])),
                "messages_per_episode": float(np.mean([r.messages for r in results])),
                "update_seconds": elapsed,
                **stats,
                **(self.link.metrics() if self.link is not None else {}),
            }
            if self.success_fn is not None:
                metrics["success"] = float(np.mean([float(self.success_fn(r.info)) for r in results]))
            if self.scheduler is not None:
                metrics["phase"] = self.scheduler.phase
            if self.curriculum is not None:
                metrics["curriculum_level"] = self.curriculum.level
            self._golden(elapsed, batch)
            if self.cfg.eval_every and self.update_index % self.cfg.eval_every == 0:
                val = self.evaluate("validation")
                metrics.update({f"val_{k}": v for k, v in val.items()})
                score = val.get("success", val["return"])
                if self.best_score is None or score > self.best_score:
                    self.best_score = score
                    if checkpoint_dir is not None:
                        self.save_checkpoint(Path(checkpoint_dir) / "best", metrics)
            self.events.emit("metrics", **metrics)
            self.history.append(metrics)
            last_metrics = metrics
            if self.scheduler is not None and self.update_index % self.cfg.cycle_updates == 0:
                cycle = self.history[-self.cfg.cycle_updates :]
                key = "success" if "success" in metrics else "return"
                self.scheduler.end_cycle({a: float(np.mean([m[key] for m in cycle])) for a in self.agents})
            if (
                checkpoint_dir is not None
                and self.cfg.checkpoint_every
                and (self.update_index % self.cfg.checkpoint_every == 0)
            ):
                self.save_checkpoint(Path(checkpoint_dir) / "last", metrics)
            if progress is not None:
                progress(self.update_index, metrics)
        if checkpoint_dir is not None:
            self.save_checkpoint(Path(checkpoint_dir) / "last", last_metrics)
        self.events.emit("finished", status=status, metrics=last_metrics)
        return {"status": status, "metrics": last_metrics, "train_seconds": self.train_seconds}

    def _golden(self, update_seconds: float, batch: Batch) -> None:
        if self.golden is None:
            return
        now = time.monotonic()
        if self._last_update_time is not None:
            self.golden.observe(
                "policy_update_interval_h", now - self._last_update_time, step=self.update_index
            )
        self._last_update_time = now
        steps = max(1, batch.obs.shape[0])
        self.golden.observe(
            "inter_agent_latency_ms", 1000.0 * update_seconds / steps / max(1, self.n), step=self.update_index
        )
        if self.replay is not None:
            self.golden.observe("replay_buffer_size", len(self.replay), step=self.update_index)
        if self.scheduler is not None:
            self.golden.observe("phase_duration_h", self.scheduler.phase_elapsed(), step=self.update_index)
        from training.golden import diversity_index

        probe = batch.obs[: min(16, steps)]
        with torch.no_grad():
            logits, _ = self.actor(
                probe, None, 0.0, batch.present[: probe.shape[0]], batch.valid[: probe.shape[0]]
            )
        probs = torch.softmax(logits, -1)  # [P, N, A]
        vectors = [probs[:, i].flatten().tolist() for i in range(self.n)]
        self.golden.observe("agent_diversity_index", diversity_index(vectors), step=self.update_index)
        self.golden.report(self.update_index, self.episodes_done)

    # ---- checkpoints (safetensors + JSON, never pickle) ---------------------------------------------
    def _tensors(self) -> dict[str, torch.Tensor]:
        out = {f"actor.{k}": v for k, v in self.actor.state_dict().items()}
        out.update({f"critic.{k}": v for k, v in self.critic.state_dict().items()})
        if self.q_critic is not None:
            out.update({f"q_critic.{k}": v for k, v in self.q_critic.state_dict().items()})
        if self.value_norm is not None:
            out.update({f"value_norm.{k}": v for k, v in self.value_norm.state_dict().items()})
        if self.q_norm is not None:
            out.update({f"q_norm.{k}": v for k, v in self.q_norm.state_dict().items()})
        opt = self.optimizer.state_dict()
        for pid, st in opt["state"].items():
            for k, v in st.items():
                out[f"optim.{pid}.{k}"] = v if isinstance(v, torch.Tensor) else torch.tensor(v)
        return {k: v.detach().contiguous().clone() for k, v in out.items()}

    def save_checkpoint(self, directory: str | Path, metrics: Mapping[str, Any] | None = None) -> Path:
        """Write `model.safetensors` + `state.json` into `directory`; emits a "checkpoint" event."""
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        save_file(self._tensors(), str(directory / "model.safetensors"))
        state = {
            "format": "mase.mappo/1",
            "config": asdict(self.cfg),
            "agents": self.agents,
            "n_actions": self.n_actions,
            "obs_dim": self.obs_dim,
            "state_dim": self.state_dim,
            "update_index": self.update_index,
            "episodes_done": self.episodes_done,
            "train_seconds": self.train_seconds,
            "best_score": self.best_score,
            "scheduler": self.scheduler.state_dict() if self.scheduler is not None else None,
            "curriculum": self.curriculum.state_dict() if self.curriculum is not None else None,
            "rng": self.rng.getstate()[1][:625],
            "torch_seed": int(torch.initial_seed()),
            "metrics": dict(metrics or {}),
        }
        if self.link is not None:
            from agents.protocol.link import save_link

            state["protocol"] = save_link(self.link, directory)  # the codebook the runtime must read with
        (directory / "state.json").write_text(json.dumps(state, default=float))
        self.events.emit(
            "checkpoint", step=self.update_index, path=str(directory), metrics=dict(metrics or {})
        )
        return directory

    def load_checkpoint(self, directory: str | Path) -> int:
        """Restore networks, optimiser and schedule from `save_checkpoint`; returns the update index."""
        from safetensors import SafetensorError
        from safetensors.torch import load_file

        directory = Path(directory)
        weights, state_path = directory / "model.safetensors", directory / "state.json"
        if not weights.is_file() or not state_path.is_file():
            raise CheckpointError(f"checkpoint {str(directory)!r} needs model.safetensors and state.json")
        try:
            state = json.loads(state_path.read_text())
            tensors = load_file(str(weights))
        except (json.JSONDecodeError, SafetensorError, OSError) as exc:
            raise CheckpointError(f"checkpoint {str(directory)!r} is corrupted: {exc}") from None
        if state.get("format") != "mase.mappo/1":
            raise CheckpointError(f"checkpoint {str(directory)!r} is not a MAPPO checkpoint")
        if state["agents"] != self.agents or state["n_actions"] != self.n_actions:
            raise CheckpointError(
                f"checkpoint {str(directory)!r} was trained for agents {state['agents']}, not {self.agents}"
            )
        for key in ("algorithm", "counterfactual", "sharing", "comm", "hidden"):
            if state["config"].get(key) != getattr(self.cfg, key):
                raise CheckpointError(
                    f"checkpoint {str(directory)!r} has {key}={state['config'].get(key)!r}; "
                    f"this run has {getattr(self.cfg, key)!r}"
                )

        def part(prefix: str) -> dict[str, torch.Tensor]:
            return {k[len(prefix) + 1 :]: v for k, v in tensors.items() if k.startswith(prefix + ".")}

        try:
            self.actor.load_state_dict(part("actor"))
            self.critic.load_state_dict(part("critic"))
            if self.q_critic is not None:
                self.q_critic.load_state_dict(part("q_critic"))
            if self.value_norm is not None:
                self.value_norm.load_state_dict(part("value_norm"))
            if self.q_norm is not None:
                self.q_norm.load_state_dict(part("q_norm"))
        except RuntimeError as exc:
            raise CheckpointError(
                f"checkpoint {str(directory)!r} does not fit this team: {str(exc).splitlines()[0]}"
            ) from None
        opt = self.optimizer.state_dict()
        optim = part("optim")
        new_state: dict[int, dict[str, torch.Tensor]] = {}
        for key, value in optim.items():
            pid, name = key.split(".", 1)
            new_state.setdefault(int(pid), {})[name] = value
        opt["state"] = new_state
        self.optimizer.load_state_dict(opt)
        self.update_index = int(state["update_index"])
        self.episodes_done = int(state["episodes_done"])
        self.train_seconds = float(state["train_seconds"])
        self.best_score = state["best_score"]
        if self.scheduler is not None and state.get("scheduler"):
            self.scheduler.load_state_dict(state["scheduler"])
        if self.curriculum is not None and state.get("curriculum"):
            self.curriculum.load_state_dict(state["curriculum"])
        self.rng.setstate((3, tuple(state["rng"]), None))
        if self.link is not None:
            from agents.protocol.link import load_link

            try:
                self.link = load_link(directory, state, events=self.events)
            except ValueError as exc:
                raise CheckpointError(str(exc)) from None
        torch.manual_seed(int(state["torch_seed"]) + self.update_index)
        return self.update_index


CLAUSE_SLOTS = 8  # 99 % of tickets have at most 8 clauses; longer tails are joined into the last slot


def clause_featurizer(backbone: Any, cache_file: str | Path | None = None) -> Featurizer:
    """Draft and step as numbers, then the ticket as a block of per-clause embeddings (the actors' readers).

    The status line is skipped: it restates the draft and step, and embedding every distinct status
    string would cost a backbone call per step.
    """
    return Featurizer(
        backbone, skip=("status", "action_mask"), clause_slots=CLAUSE_SLOTS, cache_file=cache_file
    )


def featurizer_from_spec(team: Any, backbone: Any) -> Featurizer:
    """The featurizer of a spec's team (`training.reader`), shared by `run_spec` and the runtime."""
    return clause_featurizer(backbone) if team.training.reader == "clause" else Featurizer(backbone)


def links_from_spec(team: Any) -> Any:
    """Who may message whom: the spec's communication edges (none listed = everyone to everyone)."""

    ids = [a.id for a in team.agents]
    edges = [(e.source, e.target) for e in team.edges if e.kind == "communication"]
    return allowed_links(len(ids), edges or None, ids)


def trained_team(team: Any, config: MappoConfig, checkpoint_dir: str | Path, backbone: Any) -> MappoTrainer:
    """A spec's team (environment, links, observation reader) with `config`, loaded from a checkpoint
    (CheckpointError naming the problem when it does not fit); for runtimes and checkpoint teachers."""
    from agents.envs import make_env

    name, params = team.environment.name, dict(team.environment.params)
    trainer = MappoTrainer(
        lambda split: make_env(name, params),
        config,
        backbone=backbone,
        allowed_links=links_from_spec(team),
        featurizer=featurizer_from_spec(team, backbone),
    )
    trainer.load_checkpoint(checkpoint_dir)
    return trainer


# ---------------------------------------------------------------------------------------------------------
# 5. Spec-driven entry point (what `training.api.train` calls for algorithm "mappo" / "ippo")
# ---------------------------------------------------------------------------------------------------------
def config_from_spec(team: Any) -> MappoConfig:
    """MappoConfig from a TeamSpec: `training` (episodes → updates of `batch_size` episodes, policy sharing,
    credit assignment, teacher weight, self-imitation), heads, comm."""
    t = team.training
    per_update = max(1, int(t.batch_size))

    def every(episodes: int) -> int:
        return 0 if not episodes else max(1, round(episodes / per_update))

    return MappoConfig(
        algorithm=t.algorithm,
        sharing=t.policy_sharing,
        counterfactual=bool(t.counterfactual),
        teacher_coef=float(t.teacher_coef) if t.teacher != "none" else 0.0,
        teacher_fade_updates=every(t.teacher_fade_episodes),
        comm=bool(team.communication.enabled) and t.algorithm == "mappo",
        updates=max(1, t.episodes // per_update),
        episodes_per_update=per_update,
        lr=float(t.lr),
        entropy_coef=float(t.entropy_coef) or 0.01,
        grad_clip=float(t.grad_clip),
        seed=int(t.seed),
        hidden=max(a.policy_head.hidden for a in team.agents),
        d_k=int(team.communication.d_k),
        explore_share=float(team.communication.explore_share),
        beta_start=float(team.communication.beta_start),
        beta_end=float(team.communication.beta_end),
        protocol=team.communication.protocol,
        eval_every=every(t.eval_every),
        eval_episodes=int(t.eval_episodes),
        checkpoint_every=every(t.checkpoint_every),
        cycle_updates=max(1, round(team.evolution.cycle_episodes / per_update)),
        self_imitation=float(t.self_imitation),
    )


def run_spec(
    team: Any,
    out_dir: str | Path,
    events: EventStream | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    resume: bool = True,
    progress: Callable[[int, dict], None] | None = None,
    backbone: Any | None = None,
    human_feedback: Any | None = None,
) -> dict[str, Any]:
    """Train a TeamSpec whose `training.algorithm` is "mappo" or "ippo".

    Wires the spec's reward (composer, per evolution phase), evolution schedule, curriculum, per-agent
    update periods, golden-range metrics and teacher (`training.teacher`) into `MappoTrainer`; checkpoints go to
    `out_dir/checkpoints/mappo/{last,best}` and a run resumes from `last` when `resume` is true.
    """
    from agents.envs import make_env
    from training.curriculum import AdaptiveCurriculum
    from training.evolution import EvolutionScheduler
    from training.golden import GoldenMetrics
    from training.reward import NoHumanFeedback, RewardComposer
    from training.teacher import teacher_from_spec

    if team.training.algorithm not in ("mappo", "ippo"):
        raise ValueError(f"run_spec trains 'mappo' or 'ippo' teams, not {team.training.algorithm!r}")
    events = events if events is not None else EventStream()
    cfg = config_from_spec(team)
    env_name, params = team.environment.name, dict(team.environment.params)
    if backbone is None:
        from agents.backbone import Backbone

        b = team.backbone
        backbone = Backbone.load(b.model, pooling=b.pooling, max_length=b.max_length)
    scheduler = EvolutionScheduler.from_spec(team, events=events)
    composer = RewardComposer.from_spec(team.reward, human_feedback=human_feedback or NoHumanFeedback())
    message_cost = float(team.communication.message_cost)

    def reward_fn(agent: str, env_reward: float, info: dict, extras: dict) -> float:
        # The env reward is the task term; entropy_bonus is the acting agent's policy entropy at the step;
        # communication_cost prices the messages delivered; human_feedback is read once, at the episode's end.
        values = {
            "task": env_reward,
            "communication_cost": message_cost * float(extras.get("delivered", 0.0)),
            "entropy_bonus": float(extras.get("entropy", 0.0)),
        }
        if isinstance(info.get("shaping"), (int, float)):
            values["shaping"] = float(info["shaping"])
        key = str(extras["episode_key"]) if extras.get("done") else None
        if key is None:
            values["human_feedback"] = 0.0
        return composer.compose(values, scheduler.phase, episode_key=key)

    curriculum = (
        AdaptiveCurriculum.from_spec(team.curriculum, events=events) if team.curriculum.enabled else None
    )
    agent_ids = [a.id for a in team.agents]
    trainer = MappoTrainer(
        lambda split: make_env(env_name, params),
        cfg,
        backbone=backbone,
        events=events,
        reward_fn=reward_fn,
        success_fn=lambda info: float(
            info.get("exact_match", info.get("success", info.get("accepted", 0.0)))
        ),
        allowed_links=links_from_spec(team),
        delivery_threshold=float(team.communication.delivery_threshold),
        update_periods={a.id: a.update_period for a in team.agents},
        scheduler=scheduler,
        golden=GoldenMetrics(events),
        curriculum=curriculum,
        featurizer=featurizer_from_spec(team, backbone),
        teacher=teacher_from_spec(team, backbone),
    )
    if trainer.agents != agent_ids:
        raise ValueError(
            f"the spec's agents {agent_ids} differ from environment {env_name!r}'s {trainer.agents}"
        )
    trainer.episode_prefix = f"{Path(out_dir).name}/"  # human feedback is keyed "<run dir>/<episode number>"
    root = Path(out_dir) / "checkpoints" / "mappo"
    last = root / "last"
    resume_from = last if resume and (last / "state.json").is_file() else None
    if resume_from is None:
        from training.offline import warm_start_from_spec

        warm_start_from_spec(trainer, team, Path(out_dir) / "warm_start", events)
    return trainer.train(
        should_stop=should_stop, checkpoint_dir=root, resume_from=resume_from, progress=progress
    )
