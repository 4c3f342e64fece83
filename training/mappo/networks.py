"""The networks: `TeamActor` (decentralised actors with learned communication, three policy-sharing
modes), `CentralCritic` V_i(s), `IndependentCritic` V_i(o_i) and `CounterfactualCritic` Q_i(s, a_-i, .)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from agents.comm import CommAttention, masked_softmax
from training.mappo.config import MappoConfig


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

    With ``whole`` = W the block starts with the whole ticket's sentence vector (W floats) and a linear head
    on it adds its logits to the clauses' max, so the backbone's general reading of the ticket stays in the
    score (``reader_whole``; measured in docs/experiments/2026-12-05-generalisation.md: it did not lift a
    team on hand-written tickets, so it is off by default). With ``plain`` that head is a plain one-vs-rest
    logistic regression instead (fitted apart, `training.evidence.fit_plain_head`): the scores are the
    average of the clauses' and its probabilities (``actor_evidence="reader_plain"``); with
    ``"reader_plain_answers"`` each score is 1 where that average answers the intent (≥ 0.5, and at least its
    most probable intent), else 0: the actors see on any ticket the same kind of input as in training.
    """

    def __init__(
        self,
        n_agents: int,
        slots: int,
        dim: int,
        hidden: int,
        outputs: int,
        whole: int = 0,
        evidence: str = "reader",
    ):
        super().__init__()
        self.slots, self.dim, self.whole_dim = slots, dim, int(whole)
        self.plain = bool(whole) and evidence != "reader"  # the whole head is a plain classifier
        self.answers = self.plain and evidence.endswith("_answers")  # scores become the evidence's answers
        self.l1 = PerAgentLinear(n_agents, dim, hidden)
        self.l2 = PerAgentLinear(n_agents, hidden, outputs, gain=1.0)
        # with a whole-ticket vector before the clauses: a linear head on it, its logits added to the
        # clauses' (zero at the start: the reader starts as a clause reader)
        self.whole = PerAgentLinear(n_agents, self.whole_dim, outputs, gain=0.0) if self.whole_dim else None

    @property
    def width(self) -> int:
        return self.whole_dim + self.slots * (self.dim + 1)

    def logits(self, block: torch.Tensor) -> torch.Tensor:
        """Max-pooled clause logits [B, N, outputs] from clause blocks [B, N, K·D + K] (with a whole-ticket
        head: [B, N, W + K·D + K], the whole ticket's logits added; with ``plain``: the logits of the
        averaged probabilities)."""
        if self.plain:
            return torch.logit(self(block), eps=1e-6)
        if self.whole is None:
            return self._clause_logits(block)
        whole, clauses = block[..., : self.whole_dim], block[..., self.whole_dim :]
        return self.whole(whole) + self._clause_logits(clauses)

    def _clause_logits(self, block: torch.Tensor) -> torch.Tensor:
        B, N = block.shape[:2]
        clauses = block[..., : self.slots * self.dim].reshape(B, N, self.slots, self.dim)
        mask = block[..., self.slots * self.dim :] > 0.5
        x = clauses.permute(0, 2, 1, 3).reshape(B * self.slots, N, self.dim)  # PerAgentLinear: [*, N, d]
        per_clause = self.l2(torch.relu(self.l1(x))).reshape(B, self.slots, N, -1).permute(0, 2, 1, 3)
        per_clause = per_clause.masked_fill(~mask.unsqueeze(-1), -1e4)
        return per_clause.max(dim=2).values

    def forward(self, block: torch.Tensor) -> torch.Tensor:
        if not self.plain:
            return torch.sigmoid(self.logits(block))
        whole, clauses = block[..., : self.whole_dim], block[..., self.whole_dim :]
        scores = 0.5 * (torch.sigmoid(self._clause_logits(clauses)) + torch.sigmoid(self.whole(whole)))
        if not self.answers:
            return scores
        # 1 for every intent the evidence answers (at least one half, and at least its most probable), else 0
        top = scores == scores.max(dim=-1, keepdim=True).values
        return ((scores >= 0.5) | top).to(scores.dtype)


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
            slots, dim, *whole = clause_block  # (K, D) or (K, D, W): a whole-ticket vector before the clauses
            self.reader = ClauseReader(
                n_agents,
                slots,
                dim,
                cfg.reader_hidden,
                cfg.reader_outputs,
                whole=whole[0] if whole else 0,
                evidence=cfg.actor_evidence,
            )
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
        readers = (
            tuple(m for m in (self.reader.l1, self.reader.l2, self.reader.whole) if m is not None)
            if self.reader is not None
            else ()
        )
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
