"""The team's writer: which reply style to write a ticket's reply in, learned from a reward on the reply.

A routing team's agents decide *what* the reply says (one template or model-written part per intent);
the writer decides *how* it is written: one of a few domain-neutral `STYLES` (serving.generation.styles
turns a reply's parts into the style). It is a separate decision from routing: the routing actors never
read it and are never trained by its reward (decision 0029).

The policy is a softmax head over the styles on the team's frozen, unit-length ticket embedding x:

    π(a | x) = softmax(W z + b)_a,   z = (x - μ) / σ  (the training tickets' mean and spread)

trained as a contextual bandit with REINFORCE and a baseline (one decision, one reward, no return):

    loss = -mean[(r(x, a) - b̄) log π(a | x)] - β H(π(· | x)),   a ~ π(· | x)

where r(x, a) is the reward of the reply written in style a (a ratings reward model's score of the ticket
and that reply, in [0, 1]), b̄ a moving average of the rewards seen (it lowers the gradient's variance and
leaves its expectation unchanged), and β a small entropy bonus that keeps every style tried early on.

Without a saved writer every reply is written in "plain", the style of the templates as they are: an
existing checkpoint, and every figure measured with it, is unchanged. A trained writer is saved beside the
team's checkpoint (`WRITER_FILE`, safetensors) and loaded by the serving runtime with the checkpoint.

The reward model of ratings (`training.reward_model`) judges (ticket, reply). `pair_features` gives it the
ticket's and the reply's embeddings apart, with their elementwise product: a linear head on one embedding
of the joined text scores a style the same way for every ticket (up to small interactions), so it could
not prefer an apology for one ticket and a brief answer for another.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

STYLES = ("plain", "apologetic", "brief", "steps")
"""The reply styles, in the head's output order; "plain" (index 0) is the templates' reply as it is."""
PLAIN = STYLES[0]
WRITER_FILE = "reply_writer.safetensors"


# ---- hyper-parameters -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class WriterConfig:
    """REINFORCE on the writer head (full sweeps of the tickets, a sampled style per ticket per sweep)."""

    updates: int = 1000
    batch_size: int = 256
    lr: float = 0.02
    entropy_coef: float = 0.01
    baseline_decay: float = 0.9  # b̄ ← decay b̄ + (1 - decay) mean(r)
    weight_decay: float = 1e-3
    seed: int = 0


# ---- the network ----------------------------------------------------------------------------------------
class WriterHead(torch.nn.Module):
    """Standardise the ticket embedding (the training tickets' mean and spread: sentence embeddings share a
    large common part, and the differences between tickets are small beside it), then a linear softmax
    over `STYLES`. ``inputs``: what a row is — `EMBEDDING` (the ticket's vector alone, the first writers) or
    `WITH_SURFACE` (`ticket_features`: the vector and the ticket's length and tone)."""

    def __init__(self, dim: int, styles: Sequence[str] = STYLES, inputs: str = "embedding"):
        super().__init__()
        self.styles = tuple(styles)
        self.inputs = inputs
        self.linear = torch.nn.Linear(dim, len(self.styles))
        torch.nn.init.zeros_(self.linear.weight)  # an untrained head is uniform over the styles
        torch.nn.init.zeros_(self.linear.bias)
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("std", torch.ones(dim))

    def forward(self, embeddings: torch.Tensor) -> torch.Tensor:
        return self.linear((embeddings.float() - self.mean) / self.std)

    def choose(self, embeddings: torch.Tensor) -> list[str]:
        """The most likely style of each row (what serving writes: no sampling in front of a customer)."""
        with torch.no_grad():
            return [self.styles[int(i)] for i in self(embeddings).argmax(dim=-1)]

    def choose_for(self, embeddings: torch.Tensor, texts: Sequence[str]) -> list[str]:
        """`choose` on what this head reads of tickets given as their embeddings and texts (serving)."""
        rows = ticket_features(embeddings, texts) if self.inputs == WITH_SURFACE else embeddings
        return self.choose(rows)


# ---- what the writer and the ratings reward model read of a ticket --------------------------------------
EMBEDDING, WITH_SURFACE = "embedding", "embedding+surface"
SURFACE = ("log_words", "exclamations", "questions", "capitals")
"""The ticket's length and tone as its text shows them, whatever its language's words: a mean-pooled
sentence vector keeps what a ticket is about and loses most of how long and how heated it is."""


def surface_features(texts: Sequence[str]) -> torch.Tensor:
    """[n, len(SURFACE)]: log(1 + words), "!" and "?" counts (at most 3), share of capitals among letters."""
    rows = []
    for text in texts:
        letters = [c for c in text if c.isalpha()]
        capitals = sum(c.isupper() for c in letters) / len(letters) if letters else 0.0
        rows.append(
            [math.log1p(len(text.split())), min(text.count("!"), 3), min(text.count("?"), 3), capitals]
        )
    return torch.tensor(rows, dtype=torch.float32).reshape(len(rows), len(SURFACE))


def ticket_features(embeddings: torch.Tensor, texts: Sequence[str]) -> torch.Tensor:
    """[unit-length ticket embedding, `surface_features`]: the writer's and the style reward model's input."""
    unit = torch.nn.functional.normalize(embeddings.detach().float(), dim=-1)
    return torch.cat([unit, surface_features(texts)], dim=-1)


# ---- the loss -------------------------------------------------------------------------------------------
def reinforce_loss(
    logits: torch.Tensor, actions: torch.Tensor, rewards: torch.Tensor, baseline: float, entropy_coef: float
) -> torch.Tensor:
    """-mean[(r - b̄) log π(a|x)] - β mean H(π(·|x)) for one batch of (logits, sampled actions, rewards)."""
    log_probs = torch.log_softmax(logits, dim=-1)
    chosen = log_probs.gather(1, actions.unsqueeze(1)).squeeze(1)
    entropy = -(log_probs.exp() * log_probs).sum(dim=-1)
    return -((rewards - baseline) * chosen).mean() - entropy_coef * entropy.mean()


# ---- the loop -------------------------------------------------------------------------------------------
RewardOf = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
"""reward_of(ticket indices [B], style indices [B]) -> rewards [B] in [0, 1]."""


def train_writer(
    embeddings: torch.Tensor,
    reward_of: RewardOf,
    config: WriterConfig = WriterConfig(),
    inputs: str = EMBEDDING,
) -> tuple[WriterHead, dict]:
    """Train a writer head on tickets' rows ``[n, dim]`` with ``reward_of``: unit-length embeddings, or
    `ticket_features` with ``inputs=WITH_SURFACE``.

    Returns the head and what training saw: the mean reward of the first and last tenth of the updates
    (of the sampled styles) and the share of each style the trained head chooses on these tickets."""
    generator = torch.Generator().manual_seed(config.seed)
    torch.manual_seed(config.seed)
    x = embeddings.detach().float()
    head = WriterHead(x.shape[1], inputs=inputs)
    head.mean.copy_(x.mean(dim=0))
    head.std.copy_(x.std(dim=0, unbiased=False).clamp_min(1e-6))
    optimizer = torch.optim.Adam(head.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    baseline, seen = None, []
    for _ in range(config.updates):
        batch = torch.randint(len(x), (min(config.batch_size, len(x)),), generator=generator)
        logits = head(x[batch])
        actions = torch.multinomial(torch.softmax(logits.detach(), dim=-1), 1, generator=generator).squeeze(1)
        rewards = reward_of(batch, actions).float()
        mean = float(rewards.mean())
        baseline = (
            mean
            if baseline is None
            else config.baseline_decay * baseline + (1 - config.baseline_decay) * mean
        )
        optimizer.zero_grad()
        reinforce_loss(logits, actions, rewards, baseline, config.entropy_coef).backward()
        optimizer.step()
        seen.append(mean)
    tenth = max(1, len(seen) // 10)
    chosen = head.choose(x)
    return head, {
        "reward_first": sum(seen[:tenth]) / tenth,
        "reward_last": sum(seen[-tenth:]) / tenth,
        "chosen": {s: chosen.count(s) / len(chosen) for s in head.styles},
        "tickets": len(x),
        "config": asdict(config),
    }


# ---- exploring styles on live traffic (decision 0035) ----------------------------------------------------
MAX_EXPLORE = 0.2
"""The largest share of live replies a deployment may write in a style other than its writer's choice."""


def explored_style(chosen: str, share: float, rng) -> str | None:
    """With probability ``share`` (at most `MAX_EXPLORE`), another style than ``chosen`` drawn uniformly: a
    writer that always serves one style collects ratings that say nothing about the others (None: serve
    ``chosen``)."""
    if not 0.0 <= share <= MAX_EXPLORE:
        raise ValueError(f"the explored share of reply styles must lie in [0, {MAX_EXPLORE}], got {share}")
    if share == 0.0 or rng.random() >= share:
        return None
    return rng.choice([s for s in STYLES if s != chosen])


def style_propensity(chosen: str, served: str, share: float) -> float:
    """The probability that a ticket's reply is written in ``served`` when the writer chose ``chosen`` (its
    most likely style: serving never samples) and ``explored_style`` draws another style with probability
    ``share``: 1 - share for the writer's choice, share / (other styles) for each other one. Logged with the
    reply, it lets the ratings judge another writer fairly when this one chose by ticket (decision 0039)."""
    return 1.0 - share if served == chosen else share / (len(STYLES) - 1)


# ---- when a reward model may teach the writer -----------------------------------------------------------
def untrusted_reward_model(accuracy: float, baseline_accuracy: float, n_heldout: int) -> str | None:
    """Why a ratings reward model must not teach the writer (None: it may). A writer trained on a reward
    model that predicts held-out ratings no better than always answering the most common star learns that
    model's noise, and the next generation's replies get worse than plain; such a generation keeps every
    reply plain instead."""
    from training.reward_model import MIN_RELIABLE_HELDOUT

    if n_heldout < MIN_RELIABLE_HELDOUT:
        return f"its held-out accuracy rests on {n_heldout} ratings (fewer than {MIN_RELIABLE_HELDOUT})"
    if accuracy <= baseline_accuracy:
        return (
            f"its held-out accuracy {accuracy:.2f} is no better than always giving the most common star "
            f"({baseline_accuracy:.2f})"
        )
    return None


# ---- what the reward model reads ------------------------------------------------------------------------
def pair_features(tickets: torch.Tensor, replies: torch.Tensor) -> torch.Tensor:
    """[t, r, t ⊙ r] of unit-length ticket and reply embeddings (rows paired): what a ratings reward model
    of (ticket, reply) reads, so that a linear head can score a reply differently for different tickets."""
    t = torch.nn.functional.normalize(tickets.float(), dim=-1)
    r = torch.nn.functional.normalize(replies.float(), dim=-1)
    return torch.cat([t, r, t * r], dim=-1)


# ---- beside the checkpoint ------------------------------------------------------------------------------
def save_writer(head: WriterHead, checkpoint_dir: str | Path, metadata: dict) -> Path:
    """Write the head beside the team's checkpoint (`WRITER_FILE`); ``metadata`` goes in the header."""
    from safetensors.torch import save_file

    path = Path(checkpoint_dir) / WRITER_FILE
    tensors = {k: v.detach().contiguous() for k, v in head.state_dict().items()}
    header = {"mase": json.dumps(metadata), "mase_styles": json.dumps(list(head.styles))}
    header["mase_inputs"] = head.inputs
    save_file(tensors, str(path), metadata=header)
    return path


def load_writer(checkpoint_dir: str | Path) -> WriterHead | None:
    """The writer saved beside a checkpoint, or None (no file: every reply is "plain")."""
    from safetensors import safe_open

    path = Path(checkpoint_dir) / WRITER_FILE
    if not path.is_file():
        return None
    with safe_open(str(path), framework="pt") as handle:
        tensors = {key: handle.get_tensor(key) for key in handle.keys()}  # noqa: SIM118 (not a dict)
        header = handle.metadata() or {}
        styles = json.loads(header.get("mase_styles", json.dumps(list(STYLES))))
        inputs = header.get("mase_inputs", EMBEDDING)  # a writer saved before 0035 read the embedding alone
    unknown = set(styles) - set(STYLES)
    if unknown:
        raise ValueError(
            f"the reply writer {path.name} names styles this version does not know: {sorted(unknown)}"
        )
    if inputs not in (EMBEDDING, WITH_SURFACE):
        raise ValueError(f"the reply writer {path.name} reads {inputs!r}, which this version does not know")
    head = WriterHead(int(tensors["linear.weight"].shape[1]), styles, inputs)
    head.load_state_dict(tensors)
    return head
