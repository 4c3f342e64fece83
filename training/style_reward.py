"""A reward model of (ticket, reply style) from annotators' ratings: what the team's writer learns from
(`training.reply_writer`, decisions 0029 and 0035).

A rating judges a reply *to a ticket*: whether an apology or a short answer serves well depends on the
ticket. A model of the reply alone, or of one embedding of ticket and reply joined, scores a style almost
the same way for every ticket, so it cannot tell the writer which ticket wants which style. This model
crosses the ticket's features with the reply's style: one ridge regression of the stars per style on the
ticket's features (`ticket_features`: the backbone's vector of its meaning and its length and tone),

    stars(t, s) ≈ b_s + w_s · z(t),   z = standardised ticket features,

which is a linear model on [one-hot(s) ⊗ (1, z)]: a block per style, each fitted in closed form. The ridge
penalties (one for the embedding's columns, one for the few surface features) are chosen by k-fold
cross-validation on the training split; a share of the rated items is held
out and scored: `mse` against the constant (`mse_constant`, the training split's mean star) and against
the ticket-blind model of the style alone (`mse_style_only`). Regression on the stars, not a softmax over
five classes: a rating is a noisy number, and its exact star is mostly noise.

The writer may only learn from a model that predicts held-out ratings better than the constant and whose
preferred styles earn more stars than plain replies on ratings it was not fitted on (`gain_over_plain`:
an inverse-propensity estimate from the logged ratings, each rating judged out of fold, weighted by the
probability its style was served with as logged — decision 0039), on at least `MIN_RELIABLE_HELDOUT`
held-out ratings (`untrusted_style_reward`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from training.reply_writer import PLAIN, STYLES, SURFACE

LAMBDAS = (1.0, 10.0, 100.0, 1000.0, 10000.0)  # the ridge penalties cross-validation chooses among
FOLDS = 5
MIN_RELIABLE_HELDOUT = 30  # as training.reward_model: fewer held-out ratings say little


@dataclass(frozen=True)
class StyleRewardMetrics:
    mse: float  # held-out mean squared error in stars²
    mse_constant: float  # always the training mean star
    mse_style_only: float  # each style's training mean, whatever the ticket
    n_train: int
    n_heldout: int
    ratings_per_style: dict
    ridge: tuple  # the chosen λ of the embedding's columns and of the surface features
    gain_over_plain: float | None = None  # stars of its best style − of plain, out of fold (`_policy_gain`)


class StyleReward(torch.nn.Module):
    """stars(t, s) = b_s + w_s · (x(t) - μ) / σ for ticket features x (`ticket_features`)."""

    def __init__(self, dim: int, styles: Sequence[str] = STYLES):
        super().__init__()
        self.styles = tuple(styles)
        self.weight = torch.nn.Parameter(torch.zeros(len(self.styles), dim), requires_grad=False)
        self.bias = torch.nn.Parameter(torch.full((len(self.styles),), 3.0), requires_grad=False)
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("std", torch.ones(dim))

    def stars(self, features: torch.Tensor) -> torch.Tensor:
        """[tickets, styles]: the expected stars of each ticket's reply in each style."""
        z = (features.float() - self.mean) / self.std
        return z @ self.weight.T + self.bias

    def reward(self, features: torch.Tensor) -> torch.Tensor:
        """[tickets, styles] rewards in [0, 1]: (stars - 1) / 4, clipped."""
        return ((self.stars(features) - 1) / 4).clamp(0.0, 1.0)


def _ridge(z: torch.Tensor, y: torch.Tensor, penalty: torch.Tensor) -> tuple[torch.Tensor, float]:
    """(w, b) minimising |z w + b - y|² + Σ_j penalty_j w_j² (b unpenalised), z standardised."""
    if len(y) == 0:
        return torch.zeros(z.shape[1], dtype=z.dtype), 3.0
    mu_z, mu_y = z.mean(dim=0), float(y.mean())
    zc, yc = z - mu_z, y - mu_y
    w = torch.linalg.solve(zc.T @ zc + torch.diag(penalty), zc.T @ yc)
    return w, mu_y - float(mu_z @ w)


def _fit_blocks(z: torch.Tensor, styles: torch.Tensor, y: torch.Tensor, penalty: torch.Tensor, n_styles: int):
    blocks = [_ridge(z[styles == s], y[styles == s], penalty) for s in range(n_styles)]
    return torch.stack([w for w, _ in blocks]), torch.tensor([b for _, b in blocks], dtype=z.dtype)


def _predict(z: torch.Tensor, styles: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return (z * w[styles]).sum(dim=1) + b[styles]


def _penalties(dim: int, tail: int) -> list[tuple[tuple[float, float], torch.Tensor]]:
    """Every (λ of the first dim - tail columns, λ of the last tail columns) of `LAMBDAS` as a penalty vector:
    a few named features (length, tone) must not be shrunk as hard as hundreds of embedding dimensions."""
    pairs = [(a, b) for a in LAMBDAS for b in (LAMBDAS if tail else (0.0,))]
    out = []
    for head, rest in pairs:
        vector = torch.full((dim,), head, dtype=torch.float64)
        if tail:
            vector[dim - tail :] = rest
        out.append(((head, rest), vector))
    return out


def _choose_ridge(
    z, styles, y, n_styles: int, tail: int, seed: int
) -> tuple[tuple[float, float], torch.Tensor]:
    """The penalties of `_penalties` with the least k-fold cross-validated squared error (training split)."""
    folds = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed)) % FOLDS
    best, best_error = None, float("inf")
    for lams, penalty in _penalties(z.shape[1], tail):
        total = 0.0
        for k in range(FOLDS):
            fit, val = folds != k, folds == k
            w, b = _fit_blocks(z[fit], styles[fit], y[fit], penalty, n_styles)
            total += float(((_predict(z[val], styles[val], w, b) - y[val]) ** 2).sum())
        if total < best_error:
            best, best_error = (lams, penalty), total
    return best


def train_style_reward(
    features: torch.Tensor,
    styles: Sequence[str],
    ratings: Sequence[float],
    *,
    heldout_share: float = 0.25,
    seed: int = 0,
    tail: int = len(SURFACE),
    propensities: Sequence[float | None] | None = None,
) -> tuple[StyleReward, StyleRewardMetrics]:
    """Fit `StyleReward` on rated (ticket features, style served, stars); score it on a held-out share.
    ``tail``: the last columns of ``features`` get their own ridge penalty (`ticket_features`' surface
    features; 0: one penalty for all). ``propensities``: the probability each reply's style was served with,
    as logged (`training.reply_writer.style_propensity`; None for a reply served before they were logged)."""
    if not len(features) == len(styles) == len(ratings):
        raise ValueError(f"{len(features)} tickets, {len(styles)} styles and {len(ratings)} ratings")
    if propensities is not None and len(propensities) != len(ratings):
        raise ValueError(f"{len(propensities)} propensities for {len(ratings)} ratings")
    unknown = set(styles) - set(STYLES)
    if unknown:
        raise ValueError(f"unknown reply styles {sorted(unknown)}; one of {', '.join(STYLES)}")
    x = features.detach().double()
    s = torch.tensor([STYLES.index(v) for v in styles])
    y = torch.tensor([float(r) for r in ratings], dtype=torch.float64)
    order = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))
    n_held = min(len(y) - 1, max(1, round(len(y) * heldout_share)))
    held, train = order[:n_held], order[n_held:]
    model = StyleReward(x.shape[1])
    model.mean.copy_(x[train].mean(dim=0).float())
    model.std.copy_(x[train].std(dim=0, unbiased=False).clamp_min(1e-6).float())
    z = (x - model.mean.double()) / model.std.double()
    lam, penalty = _choose_ridge(z[train], s[train], y[train], len(STYLES), tail, seed)
    w, b = _fit_blocks(z[train], s[train], y[train], penalty, len(STYLES))
    model.weight.copy_(w.float())
    model.bias.copy_(b.float())
    style_means = torch.stack([y[train][s[train] == k].mean() if (s[train] == k).any() else y[train].mean()
                               for k in range(len(STYLES))])  # fmt: skip
    metrics = StyleRewardMetrics(
        mse=float(((_predict(z[held], s[held], w, b) - y[held]) ** 2).mean()),
        mse_constant=float(((y[train].mean() - y[held]) ** 2).mean()),
        mse_style_only=float(((style_means[s[held]] - y[held]) ** 2).mean()),
        n_train=len(train),
        n_heldout=len(held),
        ratings_per_style={v: int((s == k).sum()) for k, v in enumerate(STYLES)},
        ridge=lam,
        gain_over_plain=_policy_gain(_out_of_fold_best(z, s, y, penalty, seed), s, y, propensities),
    )
    return model, metrics


def _out_of_fold_best(z, styles, y, penalty: torch.Tensor, seed: int) -> torch.Tensor:
    """Each rated ticket's preferred style by a model fitted on the other folds (every rating is judged by a
    model that did not see it, and all of them count: the explored styles are few)."""
    folds = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed + 1)) % FOLDS
    best = torch.zeros(len(y), dtype=torch.long)
    for k in range(FOLDS):
        fit, val = folds != k, folds == k
        w, b = _fit_blocks(z[fit], styles[fit], y[fit], penalty, len(STYLES))
        best[val] = (z[val] @ w.T + b).argmax(dim=1)
    return best


def _propensities(served: torch.Tensor, logged: Sequence[float | None] | None) -> torch.Tensor:
    """Each rating's probability of its served style: as logged where it was (decision 0039), else the
    style's share among all rated items — the assumption of the ratings logged before, fair only when which
    style was served did not depend on the ticket (uniform exploration)."""
    share = torch.bincount(served, minlength=len(STYLES)).double() / len(served)
    out = share[served].clone()
    for i, p in enumerate(logged or ()):
        if p is not None:
            out[i] = float(p)
    return out.clamp_min(1e-9)


def _policy_value(
    policy: torch.Tensor, served: torch.Tensor, y: torch.Tensor, p: torch.Tensor
) -> float | None:
    """The mean stars a policy (a style per rated ticket) would earn, from the logged ratings alone: the
    ratings of items served the style it picks, each weighted by 1 / the probability it was served with
    (self-normalised inverse propensity). None: no such item."""
    weight = (policy == served).double() / p
    return None if float(weight.sum()) == 0 else float((weight * y).sum() / weight.sum())


def _policy_gain(
    chosen: torch.Tensor, served: torch.Tensor, y: torch.Tensor, logged: Sequence[float | None] | None = None
) -> float | None:
    """Stars the model's best style would earn minus those of plain everywhere, from the logged ratings
    alone (each choice made out of fold), both estimated by `_policy_value` with `_propensities`: a writer
    that chose by ticket served plain to some kinds of ticket more often than to others, so neither the
    raw share of a style nor the plain replies' mean star is fair without the logged probabilities. None:
    no item to weigh or no plain reply to compare with."""
    p = _propensities(served, logged)
    best = _policy_value(chosen, served, y, p)
    plain = _policy_value(torch.full_like(served, STYLES.index(PLAIN)), served, y, p)
    return None if best is None or plain is None else best - plain


def untrusted_style_reward(metrics: StyleRewardMetrics) -> str | None:
    """Why the model must not teach the writer (None: it may): too few held-out ratings, held-out ratings
    predicted no better than by the training mean star, or its preferred styles earning no more stars than
    plain replies on ratings it was not fitted on (`gain_over_plain`; a model can predict ratings well
    through the styles' averages and still prefer the wrong style for the tickets it would change)."""
    if metrics.n_heldout < MIN_RELIABLE_HELDOUT:
        return f"its held-out error rests on {metrics.n_heldout} ratings (fewer than {MIN_RELIABLE_HELDOUT})"
    if metrics.mse >= metrics.mse_constant:
        return (
            f"it predicts held-out ratings no better than the mean star (squared error {metrics.mse:.2f} "
            f"against {metrics.mse_constant:.2f})"
        )
    if metrics.gain_over_plain is not None and metrics.gain_over_plain <= 1e-9:
        return (
            f"the styles it prefers would earn no more stars than plain replies on ratings it did not see "
            f"({metrics.gain_over_plain:+.2f})"
        )
    return None
