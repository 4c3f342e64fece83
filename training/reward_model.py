"""A reward model learned from annotators' 1–5 ratings or pairwise judgements: a small head on the frozen
backbone's embedding of what was judged (the ticket and the reply the customer read, then the decisions).

The backbone (agents.backbone, MiniLM by default) turns an episode's text into a vector; a linear
softmax head over the five stars is trained on standardised vectors with weight decay. Its score is the
expected rating E[r] = sum_k p_k k, normalised to [0, 1] as (E[r] - 1) / 4 like human ratings, so it can
stand in for the `human_feedback` reward term (`RewardModelFeedback`).

A share of the rated items is held out; `accuracy` is the share of held-out items whose most likely star
equals their (rounded mean) rating, `mae` the mean absolute error of E[r] in stars, and
`baseline_accuracy` what always answering the training split's most common star scores (chance).
Accuracy on a handful of held-out items says little (2 of 3 right is "67 %"), so it is always reported
with `n_heldout`, and `heldout_warning` flags fewer than MIN_RELIABLE_HELDOUT held-out items.
Pairwise judgements ("A is better", "B is better", "tie") train a Bradley–Terry head instead
(`PreferenceHead`): a score s(x) = w·z(x) on the standardised embedding z, fitted with the loss
-log σ(s_preferred - s_other) so that P(A beats B) = σ(s_A - s_B). One item is one pair: its judgements
are a majority vote, and an item whose vote is a tie (every judgement "tie", or as many A as B) is
skipped — a tie says nothing about which side is better, and counting it as half a win each way would only
pull the two scores together (`n_ties` says how many were skipped). Its `accuracy` is the share of held-out
pairs whose preferred side scores higher (chance: 0.5), reported with `n_heldout` (pairs) and the same
`heldout_warning`. Its reward is σ(s): the probability of beating an average judged reply (w has no bias,
so the centre of the training embeddings scores 0), in (0, 1) like a normalised rating.

Weights are saved as safetensors (never pickle) with the metrics in the file's metadata; the head's kind
is stored beside them, so `load_reward_model` gives back a `RatingHead` or a `PreferenceHead`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

STARS = 5
MIN_ITEMS = 4  # fewer rated items leave nothing to hold out and nothing to learn from
MIN_RELIABLE_HELDOUT = 30  # fewer held-out items: the accuracy's 95 % interval is wider than ±15 points


class RewardModelError(ValueError):
    """Training data or a saved file the reward model cannot use; the message says what is wrong."""


@dataclass(frozen=True)
class HeldOutMetrics:
    accuracy: float
    mae: float
    baseline_accuracy: float
    n_train: int
    n_heldout: int


@dataclass(frozen=True)
class PairwiseMetrics:
    accuracy: float
    baseline_accuracy: float  # chance: a coin picks the preferred side half of the time
    n_train: int
    n_heldout: int
    n_ties: int  # judged items skipped because their vote was a tie
    head: str = "pairwise"


def heldout_warning(n_heldout: int, unit: str = "item") -> str | None:
    """What to tell whoever reads a held-out accuracy measured on too few items (None: enough items).

    ``unit``: "item" (rated items) or "pair" (judged pairs)."""
    if n_heldout >= MIN_RELIABLE_HELDOUT:
        return None
    act = "judge" if unit == "pair" else "rate"
    return (
        f"only {n_heldout} held-out {unit}{'' if n_heldout == 1 else 's'}: the accuracy is a rough guess; "
        f"{act} more {unit}s (at least {MIN_RELIABLE_HELDOUT} held out, about {4 * MIN_RELIABLE_HELDOUT} "
        f"{act}d) before trusting it"
    )


class RatingHead(torch.nn.Module):
    """Standardise the embedding, then a linear layer to logits over 1..5 stars."""

    KIND = "rating"

    def __init__(self, dim: int):
        super().__init__()
        self.linear = torch.nn.Linear(dim, STARS)
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("std", torch.ones(dim))

    def forward(self, embeddings: torch.Tensor) -> torch.Tensor:
        return self.linear((embeddings - self.mean) / self.std)

    def expected_rating(self, embeddings: torch.Tensor) -> torch.Tensor:
        """E[r] in [1, 5] for each row of `embeddings`."""
        with torch.no_grad():
            probs = torch.softmax(self(embeddings.float()), dim=-1)
        return probs @ torch.arange(1, STARS + 1, dtype=torch.float32)

    def reward(self, embeddings: torch.Tensor) -> torch.Tensor:
        """The reward term of each row: E[r] normalised to [0, 1] as (E[r] - 1) / 4."""
        return (self.expected_rating(embeddings) - 1) / (STARS - 1)


class PreferenceHead(torch.nn.Module):
    """Bradley–Terry: standardise the embedding, then a score w·z (no bias: only differences are learned)."""

    KIND = "pairwise"

    def __init__(self, dim: int):
        super().__init__()
        self.linear = torch.nn.Linear(dim, 1, bias=False)
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("std", torch.ones(dim))

    def forward(self, embeddings: torch.Tensor) -> torch.Tensor:
        return self.linear((embeddings - self.mean) / self.std).squeeze(-1)

    def reward(self, embeddings: torch.Tensor) -> torch.Tensor:
        """σ(s) of each row: the probability of being preferred to an average judged reply."""
        with torch.no_grad():
            return torch.sigmoid(self(embeddings.float()))


HEADS = {head.KIND: head for head in (RatingHead, PreferenceHead)}


def heldout_split(n: int, share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic (train, held-out) index arrays; at least one item on each side."""
    order = np.random.default_rng(seed).permutation(n)
    n_heldout = min(n - 1, max(1, round(n * share)))
    return np.sort(order[n_heldout:]), np.sort(order[:n_heldout])


def _star_classes(ratings: Sequence[float]) -> torch.Tensor:
    values = np.asarray(ratings, dtype=float)
    if values.ndim != 1 or not np.all((values >= 1) & (values <= STARS)):
        raise RewardModelError(f"ratings must be numbers from 1 to {STARS}")
    return torch.as_tensor(np.clip(np.floor(values + 0.5), 1, STARS) - 1, dtype=torch.long)


def _fit(
    head: RatingHead | PreferenceHead,
    embeddings: torch.Tensor,
    loss_of: Callable[[], torch.Tensor],
    *,
    steps: int,
    lr: float,
    weight_decay: float,
    progress: Callable[[float], None] | None,
) -> None:
    """Standardise on ``embeddings``' statistics, then minimise ``loss_of()`` with full-batch Adam."""
    head.mean.copy_(embeddings.mean(dim=0))
    head.std.copy_(embeddings.std(dim=0, unbiased=False).clamp_min(1e-6))
    optimizer = torch.optim.Adam(head.parameters(), lr=lr, weight_decay=weight_decay)
    for step in range(steps):
        optimizer.zero_grad()
        loss_of().backward()
        optimizer.step()
        if progress is not None and (step + 1) % max(1, steps // 20) == 0:
            progress((step + 1) / steps)


def fit_head(
    embeddings: torch.Tensor,
    classes: torch.Tensor,
    *,
    steps: int = 300,
    lr: float = 0.05,
    weight_decay: float = 1e-2,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
) -> RatingHead:
    """Train a RatingHead on (embedding, star class - 1) pairs with full-batch Adam."""
    torch.manual_seed(seed)
    head = RatingHead(embeddings.shape[1])

    def loss() -> torch.Tensor:
        return torch.nn.functional.cross_entropy(head(embeddings), classes)

    _fit(head, embeddings, loss, steps=steps, lr=lr, weight_decay=weight_decay, progress=progress)
    return head


def train_reward_model(
    embeddings: torch.Tensor,
    ratings: Sequence[float],
    *,
    heldout_share: float = 0.25,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
    **fit: float,
) -> tuple[RatingHead, HeldOutMetrics]:
    """Fit a head on a training split of (embedding, mean rating) pairs; score it on the held-out rest."""
    if len(ratings) != len(embeddings):
        raise RewardModelError(f"{len(embeddings)} embeddings but {len(ratings)} ratings")
    if len(ratings) < MIN_ITEMS:
        raise RewardModelError(f"a reward model needs at least {MIN_ITEMS} rated items, got {len(ratings)}")
    x = embeddings.detach().float().cpu()
    classes = _star_classes(ratings)
    truth = torch.as_tensor(np.asarray(ratings, dtype=float), dtype=torch.float32)
    train, heldout = heldout_split(len(ratings), heldout_share, seed)
    head = fit_head(x[train], classes[train], seed=seed, progress=progress, **fit)
    with torch.no_grad():
        predicted = head(x[heldout]).argmax(dim=-1)
    majority = int(torch.bincount(classes[train], minlength=STARS).argmax())
    metrics = HeldOutMetrics(
        accuracy=float((predicted == classes[heldout]).float().mean()),
        mae=float((head.expected_rating(x[heldout]) - truth[heldout]).abs().mean()),
        baseline_accuracy=float((classes[heldout] == majority).float().mean()),
        n_train=len(train),
        n_heldout=len(heldout),
    )
    return head, metrics


def pair_verdicts(choices_per_item: Sequence[Sequence[str]]) -> list[str]:
    """Each judged item's verdict from its judgements ("A", "B" or "tie"): the majority of its A and B
    votes; "tie" when every judgement is a tie or A and B votes are as many."""
    verdicts = []
    for choices in choices_per_item:
        unknown = set(choices) - {"A", "B", "tie"}
        if unknown:
            raise RewardModelError(f"a pairwise judgement is A, B or tie, not {sorted(unknown)[0]!r}")
        a, b = sum(c == "A" for c in choices), sum(c == "B" for c in choices)
        verdicts.append("A" if a > b else "B" if b > a else "tie")
    return verdicts


def fit_preference_head(
    preferred: torch.Tensor,
    other: torch.Tensor,
    *,
    steps: int = 300,
    lr: float = 0.05,
    weight_decay: float = 1e-2,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
) -> PreferenceHead:
    """Train a PreferenceHead on (preferred, other) embedding rows with full-batch Adam on
    -log σ(s_preferred - s_other)."""
    torch.manual_seed(seed)
    head = PreferenceHead(preferred.shape[1])

    def loss() -> torch.Tensor:  # -log σ(s_preferred - s_other)
        return torch.nn.functional.softplus(head(other) - head(preferred)).mean()

    _fit(
        head,
        torch.cat([preferred, other]),
        loss,
        steps=steps,
        lr=lr,
        weight_decay=weight_decay,
        progress=progress,
    )
    return head


def train_pairwise_reward_model(
    embeddings_a: torch.Tensor,
    embeddings_b: torch.Tensor,
    verdicts: Sequence[str],
    *,
    heldout_share: float = 0.25,
    seed: int = 0,
    progress: Callable[[float], None] | None = None,
    **fit: float,
) -> tuple[PreferenceHead, PairwiseMetrics]:
    """Fit a Bradley–Terry head on a training split of judged pairs (row i of ``embeddings_a`` against row
    i of ``embeddings_b``, ``verdicts[i]`` "A", "B" or "tie"; ties are skipped) and score it on the rest."""
    if not len(embeddings_a) == len(embeddings_b) == len(verdicts):
        raise RewardModelError(
            f"{len(embeddings_a)} A embeddings, {len(embeddings_b)} B embeddings and {len(verdicts)} verdicts"
        )
    if set(verdicts) - {"A", "B", "tie"}:
        raise RewardModelError("a verdict is A, B or tie")
    decisive = [i for i, v in enumerate(verdicts) if v != "tie"]
    if len(decisive) < MIN_ITEMS:
        raise RewardModelError(
            f"a pairwise reward model needs at least {MIN_ITEMS} pairs judged A or B, got {len(decisive)}"
            + (f" ({len(verdicts) - len(decisive)} ties skipped)" if len(verdicts) > len(decisive) else "")
        )
    a = embeddings_a.detach().float().cpu()[decisive]
    b = embeddings_b.detach().float().cpu()[decisive]
    a_wins = torch.as_tensor([verdicts[i] == "A" for i in decisive]).unsqueeze(-1)
    preferred, other = torch.where(a_wins, a, b), torch.where(a_wins, b, a)
    train, heldout = heldout_split(len(decisive), heldout_share, seed)
    head = fit_preference_head(preferred[train], other[train], seed=seed, progress=progress, **fit)
    with torch.no_grad():
        right = head(preferred[heldout]) > head(other[heldout])
    metrics = PairwiseMetrics(
        accuracy=float(right.float().mean()),
        baseline_accuracy=0.5,
        n_train=len(train),
        n_heldout=len(heldout),
        n_ties=len(verdicts) - len(decisive),
    )
    return head, metrics


def save_reward_model(head: RatingHead | PreferenceHead, path: str | Path, metadata: dict) -> Path:
    """Write the head as safetensors; `metadata` (JSON-able: backbone name, metrics) and the head's kind go
    in the header."""
    from safetensors.torch import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {name: t.detach().contiguous() for name, t in head.state_dict().items()}
    save_file(tensors, str(path), metadata={"mase": json.dumps(metadata), "mase_head": head.KIND})
    return path


def load_reward_model(path: str | Path) -> tuple[RatingHead | PreferenceHead, dict]:
    """The head (of the kind saved; files without a kind hold a rating head) and metadata saved by
    `save_reward_model`."""
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise RewardModelError(f"reward model file {str(path)!r} does not exist")
    with safe_open(str(path), framework="pt") as handle:
        tensors = {key: handle.get_tensor(key) for key in handle.keys()}  # noqa: SIM118 (not a dict)
        header = handle.metadata() or {}
    metadata = json.loads(header.get("mase", "{}"))
    kind = header.get("mase_head", RatingHead.KIND)
    if kind not in HEADS:
        raise RewardModelError(f"reward model file {str(path)!r} holds an unknown head {kind!r}")
    head = HEADS[kind](int(tensors["linear.weight"].shape[1]))
    head.load_state_dict(tensors)
    return head, metadata


class RewardModelFeedback:
    """A `HumanFeedbackSource` that scores episodes with a reward model instead of waiting for people.

    `encode(texts) -> [n, dim]` is the backbone's encoder; `text_of(episode_key)` finds the episode's text
    (None when unknown, and then the rating is None too).
    """

    def __init__(
        self,
        head: RatingHead | PreferenceHead,
        encode: Callable[[list[str]], torch.Tensor],
        text_of: Callable[[str], str | None] = lambda key: None,
    ):
        self.head, self.encode, self.text_of = head, encode, text_of

    def score_texts(self, texts: Sequence[str]) -> list[float]:
        """Predicted rewards of `texts` in [0, 1]: the normalised rating, or σ(score) of a pairwise head."""
        if not texts:
            return []
        return [float(r) for r in self.head.reward(self.encode(list(texts)).float().cpu())]

    def rating(self, episode_key: str) -> float | None:
        text = self.text_of(episode_key)
        return None if text is None else self.score_texts([text])[0]
