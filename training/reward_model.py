"""A reward model learned from annotators' 1–5 ratings: a small head on the frozen backbone's embedding.

The backbone (agents.backbone, MiniLM by default) turns an episode's text into a vector; a linear
softmax head over the five stars is trained on standardised vectors with weight decay. Its score is the
expected rating E[r] = sum_k p_k k, normalised to [0, 1] as (E[r] - 1) / 4 like human ratings, so it can
stand in for the `human_feedback` reward term (`RewardModelFeedback`).

A share of the rated items is held out; `accuracy` is the share of held-out items whose most likely star
equals their (rounded mean) rating, `mae` the mean absolute error of E[r] in stars, and
`baseline_accuracy` what always answering the training split's most common star scores (chance).
Accuracy on a handful of held-out items says little (2 of 3 right is "67 %"), so it is always reported
with `n_heldout`, and `heldout_warning` flags fewer than MIN_RELIABLE_HELDOUT held-out items.
Weights are saved as safetensors (never pickle) with the metrics in the file's metadata.
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


def heldout_warning(n_heldout: int) -> str | None:
    """What to tell whoever reads a held-out accuracy measured on too few items (None: enough items)."""
    if n_heldout >= MIN_RELIABLE_HELDOUT:
        return None
    return (
        f"only {n_heldout} held-out item{'' if n_heldout == 1 else 's'}: the accuracy is a rough guess; "
        f"rate more items (at least {MIN_RELIABLE_HELDOUT} held out, about {4 * MIN_RELIABLE_HELDOUT} rated) "
        "before trusting it"
    )


class RatingHead(torch.nn.Module):
    """Standardise the embedding, then a linear layer to logits over 1..5 stars."""

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
    head.mean.copy_(embeddings.mean(dim=0))
    head.std.copy_(embeddings.std(dim=0, unbiased=False).clamp_min(1e-6))
    optimizer = torch.optim.Adam(head.parameters(), lr=lr, weight_decay=weight_decay)
    for step in range(steps):
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(head(embeddings), classes)
        loss.backward()
        optimizer.step()
        if progress is not None and (step + 1) % max(1, steps // 20) == 0:
            progress((step + 1) / steps)
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


def save_reward_model(head: RatingHead, path: str | Path, metadata: dict) -> Path:
    """Write the head as safetensors; `metadata` (JSON-able: backbone name, metrics) goes in the header."""
    from safetensors.torch import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {name: t.detach().contiguous() for name, t in head.state_dict().items()}
    save_file(tensors, str(path), metadata={"mase": json.dumps(metadata)})
    return path


def load_reward_model(path: str | Path) -> tuple[RatingHead, dict]:
    """The head and metadata saved by `save_reward_model`."""
    from safetensors import safe_open

    path = Path(path)
    if not path.is_file():
        raise RewardModelError(f"reward model file {str(path)!r} does not exist")
    with safe_open(str(path), framework="pt") as handle:
        tensors = {key: handle.get_tensor(key) for key in handle.keys()}  # noqa: SIM118 (not a dict)
        metadata = json.loads((handle.metadata() or {}).get("mase", "{}"))
    head = RatingHead(int(tensors["linear.weight"].shape[1]))
    head.load_state_dict(tensors)
    return head, metadata


class RewardModelFeedback:
    """A `HumanFeedbackSource` that scores episodes with a reward model instead of waiting for people.

    `encode(texts) -> [n, dim]` is the backbone's encoder; `text_of(episode_key)` finds the episode's text
    (None when unknown, and then the rating is None too).
    """

    def __init__(
        self,
        head: RatingHead,
        encode: Callable[[list[str]], torch.Tensor],
        text_of: Callable[[str], str | None] = lambda key: None,
    ):
        self.head, self.encode, self.text_of = head, encode, text_of

    def score_texts(self, texts: Sequence[str]) -> list[float]:
        """Predicted ratings of `texts`, normalised to [0, 1]."""
        if not texts:
            return []
        expected = self.head.expected_rating(self.encode(list(texts)).float().cpu())
        return [float((e - 1) / (STARS - 1)) for e in expected]

    def rating(self, episode_key: str) -> float | None:
        text = self.text_of(episode_key)
        return None if text is None else self.score_texts([text])[0]
