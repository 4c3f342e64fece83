"""A team's trainable parts above the frozen backbone: per-agent policy heads plus CommAttention.

For each agent i, from its pooled text embedding x_i (backbone output, with or without its LoRA
adapter; or, with `token_attention`, its own learned attention pooling over the backbone's token states):

    h_i   = tanh(W x_i + b)                      the agent's hidden state (W, b shared, or per agent)
    msg_i = R_i M h_i                            what it says (R_i: a fixed random rotation tagging the sender)
    α     = CommAttention(LayerNorm(x))  (or a fixed routing: uniform broadcast, random, none)
    m_i   = Σ_j w_ij msg_j                       w = α (evaluation), α̃ (explored episodes), delivered only
    π_i(a | h_i, m_i) = softmax(head_i([h_i, m_i]))   for agents that act

The acting agents' heads are stored stacked (`[A, ...]` tensors) so one einsum runs them all; agent
a's slice is its own head. The value baseline, when used, reads all hidden states
(centralised, detached so it cannot shape the agents' representations).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from agents.comm import CommAttention, deliver, explore, masked_softmax
from agents.spec import READINGS, RECEPTIONS

ROUTINGS = ("learned", "broadcast", "random", "none")


@dataclass
class RoutingOutput:
    """What one forward pass decided: weights used, α, delivery, received messages, action logits."""

    alpha: torch.Tensor  # [B, N, N] attention of the network (zeros for fixed routings "none")
    route: torch.Tensor  # [B, N, N] routing weights before delivery: α̃ in explored episodes, else α
    weights: torch.Tensor  # [B, N, N] routing weights after delivery (what reaches each receiver)
    delivered: torch.Tensor  # [B, N, N] bool, messages delivered (receivers' rows only)
    received: torch.Tensor  # [B, N, d_msg]
    hidden: torch.Tensor  # [B, N, hidden]
    logits: torch.Tensor  # [B, A, n_actions] for the acting agents, in `acting` order
    value: torch.Tensor | None  # [B] learned baseline, or None


class TeamPolicy(nn.Module):
    """Per-agent heads and the communication attention of one team.

    `agents`: ids in environment order; `acting`: the ids that choose actions (each with
    `n_actions` choices); `allowed`: `[N, N]` bool, who may hear whom (self excluded).
    """

    def __init__(
        self,
        agents: Sequence[str],
        acting: Sequence[str],
        n_actions: int,
        embed_dim: int,
        allowed: torch.Tensor,
        hidden: int = 64,
        d_msg: int = 16,
        d_k: int = 32,
        value_baseline: bool = False,
        reception: str = "weighted",
        reading: str = "shared",
        token_attention: bool = False,
    ):
        super().__init__()
        if reception not in RECEPTIONS:
            raise ValueError(f"reception must be one of {RECEPTIONS}, got {reception!r}")
        if reading not in READINGS:
            raise ValueError(f"reading must be one of {READINGS}, got {reading!r}")
        # "weighted": m_i = Σ_j w_ij msg_j. "gated": every delivered message is heard at full weight
        # (m_i = Σ_j 1[delivered] msg_j): attention decides who is heard, not how loud, so a phrasing
        # that shifts the weights among the useful senders does not change what the receiver reads.
        self.reception = reception
        self.agents = list(agents)
        self.acting = list(acting)
        n, a = len(self.agents), len(self.acting)
        self.acting_index = torch.tensor([self.agents.index(x) for x in self.acting], dtype=torch.long)
        self.register_buffer("allowed", allowed.clone().bool(), persistent=False)
        receivers = torch.zeros(n, dtype=torch.bool)
        receivers[self.acting_index] = True
        # Only the rows of agents that act and may hear someone matter: messages to an agent that never
        # acts change nothing, so they are neither counted, charged nor learned.
        self.register_buffer("receivers", receivers & self.allowed.any(dim=1), persistent=False)
        self.hidden_size, self.d_msg = hidden, d_msg

        def stacked(*shape, fan_in):
            bound = 1 / math.sqrt(fan_in)
            return nn.Parameter(torch.empty(*shape).uniform_(-bound, bound))

        # Shared reading of a sentence: an agent's state, key and message depend on what its text says,
        # not on who it is, so a sender cannot learn to silence itself: only the receiver's attention
        # (or delivery) can keep a useless sender out. Per-agent specialisation lives in the agent's
        # LoRA adapter (its embedding) and, for acting agents, in its own policy head.
        # reading="per_agent" gives every agent its own first layer instead (`reader_w`, `reader_b`): a
        # shared layer must read every agent's texts at once, and it misread unseen phrasings of one
        # clue kind more often (held-out templates, docs/experiments/2026-11-30-per-agent-reading.md). The price: a sender can then learn
        # to say a constant, so the attention is no longer the only way a useless sender goes quiet
        # (its delivered messages are still charged, so dropping it still pays).
        self.reading = reading
        if reading == "per_agent":
            self.reader_w = stacked(n, embed_dim, hidden, fan_in=embed_dim)
            self.reader_b = stacked(n, hidden, fan_in=embed_dim)
        else:
            self.trunk = nn.Linear(embed_dim, hidden)
        # token_attention: each agent pools the frozen backbone's token states of its text with its own
        # learned query, x_i = Σ_t softmax_t(q_i · h_t) h_t, instead of taking the backbone's mean. The
        # queries start at zero, i.e. at mean pooling. Mean pooling lets phrasing words outvote the few
        # tokens that carry a clue, and an unseen phrasing then moves x_i; a learned pooling can settle
        # on those tokens (the held-out numbers of docs/experiments/2026-11-30-token-attention.md: it puts its weight on the digits).
        self.token_query = nn.Parameter(torch.zeros(n, embed_dim)) if token_attention else None
        self.message = nn.Linear(hidden, d_msg, bias=False)
        # The channel tags every message with its sender: a fixed random rotation per agent (not
        # trained, so a sender still cannot silence itself). Without it the receiver hears a plain
        # sum in which "clue A says 1, clue B says 0" can look like "A says 0, B says 1", and the
        # guesser stalled at 14-15 of 16 numbers on some seeds.
        rotations = torch.linalg.qr(torch.randn(n, d_msg, d_msg))[0]
        self.register_buffer("sender_code", rotations)
        self.head_w1 = stacked(a, hidden + d_msg, hidden, fan_in=hidden + d_msg)
        self.head_b1 = stacked(a, hidden, fan_in=hidden + d_msg)
        self.head_w2 = stacked(a, hidden, n_actions, fan_in=hidden)
        self.head_b2 = nn.Parameter(torch.zeros(a, n_actions))
        # Attention reads the backbone's hidden states directly (layer-normalised, no affine): the
        # scale of q·k then stays put while the trunk grows under the task loss, which otherwise
        # inflates the scores and collapses α onto one sender within a few hundred updates.
        self.attention = CommAttention(embed_dim, d_k)
        self.value = (
            nn.Sequential(nn.Linear(n * embed_dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))
            if value_baseline
            else None
        )

    def pool_tokens(self, states: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Each agent's text vectors from token states `[N, V, L, embed_dim]` (agent n's V texts, padded
        with `mask` `[N, V, L]` False) through its learned query: `[N, V, embed_dim]`."""
        if self.token_query is None:
            raise ValueError("this policy was built without token_attention")
        # scaled by 1/√dim as in dot-product attention: unscaled, Adam's first steps made the pooling
        # one-hot within a few hundred updates, and a query that settled on a word that only partly
        # tells the digit ("of" in "a multiple of 4 plus 0") never left it (N=64, seed 2: 0.77)
        scores = torch.einsum("nvld,nd->nvl", states, self.token_query) / math.sqrt(states.shape[-1])
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num()  # an all-padding row (no text) pools to 0
        return torch.einsum("nvl,nvld->nvd", weights, states)

    def read(self, embeddings: torch.Tensor, columns: torch.Tensor | None = None) -> torch.Tensor:
        """Hidden states `[B, K, hidden]` of the agents `columns` (default: all N) from their embeddings
        `[B, K, embed_dim]`."""
        if self.reading == "shared":
            return torch.tanh(self.trunk(embeddings))
        w, b = (
            (self.reader_w, self.reader_b)
            if columns is None
            else (self.reader_w[columns], self.reader_b[columns])
        )
        return torch.tanh(torch.einsum("bkd,kdh->bkh", embeddings, w) + b)

    def said(self, embeddings: torch.Tensor, columns: torch.Tensor | None = None) -> torch.Tensor:
        """What the agents `columns` (default: all) say from these embeddings, before the sender tag."""
        return self.message(self.read(embeddings, columns))

    def paraphrase_gap(
        self, embeddings: torch.Tensor, paraphrases: torch.Tensor, columns: torch.Tensor | None = None
    ) -> torch.Tensor:
        """How much what senders say changes with the phrasing of their texts, relative to how much it
        changes across texts: per sender (column of `[B, K, embed_dim]`), E‖msg(a) − msg(b)‖² over a
        batch of paraphrase pairs (a, b) divided by twice the batch variance of msg(a), averaged over
        senders. 0 when a message depends only on what a text says, not how; scale-free, so it cannot
        be lowered by shrinking every message (a plain squared distance silenced the team)."""
        said, again = self.said(embeddings, columns), self.said(paraphrases, columns)
        gap = (said - again).pow(2).sum(-1).mean(0)
        spread = (said - said.mean(0, keepdim=True)).pow(2).sum(-1).mean(0)
        return (gap / (2 * spread + 1e-8)).mean()

    def forward(
        self,
        embeddings: torch.Tensor,
        routing: str = "learned",
        explore_mask: torch.Tensor | None = None,
        beta: float = 1.0,
        threshold: float = 0.05,
        generator: torch.Generator | None = None,
        attention_grad: str = "reinforce",
        heard: torch.Tensor | None = None,
    ) -> RoutingOutput:
        """Run the team on embeddings `[B, N, embed_dim]`.

        `explore_mask` `[B]` bool marks episodes routed with α̃ (learned routing only).
        `attention_grad="reinforce"` stops the task loss's gradient at α (attention then learns only
        from REINFORCE on the explored weights); `"backprop"` lets it flow through α as well.
        `heard` `[B, N, embed_dim]`: the senders' embeddings as they reach the receivers (rebuilt from
        compressed HCP frames); messages and attention keys are computed from it, each agent's own
        state and query from `embeddings`. None = the receivers hear the exact embeddings.
        """
        batch, n = embeddings.shape[:2]
        hidden = self.read(embeddings)
        said = self.message(hidden) if heard is None else self.said(heard)
        messages = torch.einsum("bnm,nmk->bnk", said, self.sender_code)
        state = nn.functional.layer_norm(embeddings, embeddings.shape[-1:])
        keys = None if heard is None else nn.functional.layer_norm(heard, heard.shape[-1:])
        allowed = self.allowed.expand(batch, n, n) & self.receivers.view(1, n, 1)
        if routing == "learned":
            alpha = self.attention(state, allowed, keys)
            route = alpha.detach() if attention_grad == "reinforce" else alpha
            if explore_mask is not None and bool(explore_mask.any()):
                tilde = explore(alpha, beta, allowed, generator=generator)
                route = torch.where(explore_mask.view(batch, 1, 1), tilde, route)
        elif routing == "broadcast":
            alpha = masked_softmax(torch.zeros(batch, n, n, device=hidden.device), allowed)
            route = alpha
        elif routing == "random":
            noise = torch.randn(batch, n, n, generator=generator, device=hidden.device)
            alpha = masked_softmax(noise, allowed)
            route = alpha
        elif routing == "none":
            alpha = torch.zeros(batch, n, n, device=hidden.device)
            route = alpha
        else:
            raise ValueError(f"routing must be one of {ROUTINGS}, got {routing!r}")
        weights, delivered = deliver(route, threshold, allowed)
        gain = delivered.to(messages.dtype) if self.reception == "gated" else weights
        received = CommAttention.aggregate(gain, messages)
        idx = self.acting_index.to(hidden.device)
        # The head reads the received message layer-normalised: what it hears, not how loud. Without
        # this, every change of the attention's total weight on useful senders (e.g. dropping the
        # distractors: 4/6 → 4/4) would shift the head's input and undo what it had learned.
        incoming = received[:, idx]
        features = torch.cat([hidden[:, idx], incoming], dim=-1)
        inner = torch.tanh(torch.einsum("bad,adh->bah", features, self.head_w1) + self.head_b1)
        logits = torch.einsum("bah,ahk->bak", inner, self.head_w2) + self.head_b2
        value = self.value(state.detach().flatten(1)).squeeze(-1) if self.value is not None else None
        return RoutingOutput(alpha, route, weights, delivered, received, hidden, logits, value)
