"""The (ticket, style) reward model (training/style_reward.py): it learns from noisy stars which kind of ticket
wants which style, where a ticket-blind model of the style alone cannot; its held-out error is measured against
the mean star and the style alone; one that knows nothing is refused; it teaches a writer that reads the same
features."""

from __future__ import annotations

import random

import pytest
import torch

from training.reply_writer import STYLES, WITH_SURFACE, WriterConfig, style_propensity, train_writer
from training.style_reward import (
    StyleRewardMetrics,
    _policy_gain,
    train_style_reward,
    untrusted_style_reward,
)


def tickets(n: int, seed: int) -> tuple[torch.Tensor, list[str]]:
    """Random 8-dim features whose first coordinate's sign says the style the ticket wants."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    return x, ["apologetic" if float(v) > 0 else "brief" for v in x[:, 0]]


def rated(n: int, seed: int, noise: float = 0.8) -> tuple[torch.Tensor, list[str], list[float]]:
    x, wanted = tickets(n, seed)
    rng = random.Random(seed)
    served = [rng.choice(STYLES) for _ in range(n)]
    stars = [
        min(5.0, max(1.0, round((4.5 if s == w else 3.0 if s == "plain" else 2.0) + rng.gauss(0, noise))))
        for s, w in zip(served, wanted, strict=True)
    ]
    return x, served, stars


def test_the_crossed_model_learns_which_ticket_wants_which_style_from_noisy_stars():
    model, metrics = train_style_reward(*rated(800, 0), tail=0)
    assert metrics.n_heldout == 200 and sum(metrics.ratings_per_style.values()) == 800
    assert metrics.mse < metrics.mse_style_only < metrics.mse_constant
    assert untrusted_style_reward(metrics) is None and metrics.gain_over_plain > 0.5
    x, wanted = tickets(400, 1)  # tickets it never saw
    best = [STYLES[int(i)] for i in model.stars(x).argmax(dim=1)]
    assert sum(b == w for b, w in zip(best, wanted, strict=True)) / 400 > 0.9
    assert float(model.reward(x).min()) >= 0.0 and float(model.reward(x).max()) <= 1.0


def test_a_writer_taught_by_it_serves_the_wanted_style_on_unseen_tickets():
    model, _ = train_style_reward(*rated(800, 0), tail=0)
    x, _ = tickets(600, 2)
    table = model.reward(x)
    head, _ = train_writer(
        x, lambda idx, act: table[idx, act], WriterConfig(updates=300), inputs=WITH_SURFACE
    )
    unseen, wanted = tickets(300, 3)
    chosen = head.choose(unseen)
    assert sum(c == w for c, w in zip(chosen, wanted, strict=True)) / 300 > 0.85  # plain everywhere: 0


def test_stars_that_say_nothing_are_refused():
    x, served, _ = rated(400, 0)
    noise = random.Random(5)
    _, metrics = train_style_reward(x, served, [float(noise.randint(1, 5)) for _ in served], tail=0)
    assert "no better than the mean star" in untrusted_style_reward(metrics)
    few = StyleRewardMetrics(0.5, 1.0, 0.9, 60, 20, {}, (1.0, 1.0))
    assert "fewer than 30" in untrusted_style_reward(few)
    wrong = StyleRewardMetrics(0.5, 1.0, 0.9, 300, 100, {}, (1.0, 1.0), gain_over_plain=-0.1)
    assert "no more stars than plain" in untrusted_style_reward(wrong)


def test_the_surface_columns_get_their_own_penalty_and_bad_input_is_refused():
    x, served, stars = rated(400, 0)
    _, metrics = train_style_reward(x, served, stars, tail=2)
    assert len(metrics.ridge) == 2
    with pytest.raises(ValueError, match="unknown reply styles"):
        train_style_reward(x[:2], ["plain", "shouting"], [3.0, 4.0])
    with pytest.raises(ValueError, match="2 tickets"):
        train_style_reward(x[:2], ["plain"], [3.0, 4.0])


def logged_by_a_writer_that_chose_by_ticket(share: float = 0.2, per_kind: int = 300):
    """Two kinds of ticket, equally many: the logging writer chose "apologetic" for angry ones and "plain"
    for calm ones, exploring each other style with share / 3 (rows in exactly those proportions). Stars
    without noise: angry — apologetic 3, else 1; calm — plain 5, apologetic 4, else 2. Always apologetic
    truly earns (3 + 4) / 2 = 3.5 stars, always plain (1 + 5) / 2 = 3: a true gain of +0.5."""
    stars = {"angry": {"apologetic": 3.0}, "calm": {"plain": 5.0, "apologetic": 4.0}}
    served, y, p = [], [], []
    for kind, chosen, other in (("angry", "apologetic", 1.0), ("calm", "plain", 2.0)):
        for style in STYLES:
            n = round(per_kind * style_propensity(chosen, style, share))
            served += [STYLES.index(style)] * n
            y += [stars[kind].get(style, other)] * n
            p += [style_propensity(chosen, style, share)] * n
    return torch.tensor(served), torch.tensor(y, dtype=torch.float64), p


def test_logged_propensities_judge_a_writer_fairly_where_the_share_of_styles_misleads():
    """Decision 0039: the plain replies went mostly to calm tickets (5 stars) and the apologies to angry ones
    (3), so the styles' shares among the ratings make "always apologetic" look 1.6 stars worse than plain;
    weighted by the probabilities the styles were served with, the estimate is the true +0.5."""
    served, y, p = logged_by_a_writer_that_chose_by_ticket()
    always = torch.full_like(served, STYLES.index("apologetic"))
    assert _policy_gain(always, served, y) < -1.5  # the old assumption: refused, wrongly
    assert _policy_gain(always, served, y, p) == pytest.approx(0.5)
    plain = torch.zeros_like(served)
    assert _policy_gain(plain, served, y, p) == pytest.approx(0.0)


def test_ratings_logged_before_propensities_keep_todays_estimate():
    """Rows without a logged propensity (None) fall back to the style's share among the ratings: all of them
    None gives exactly the figure of before; a mix is accepted and training takes them as they come."""
    served, y, p = logged_by_a_writer_that_chose_by_ticket()
    always = torch.full_like(served, STYLES.index("apologetic"))
    legacy = _policy_gain(always, served, y)
    assert _policy_gain(always, served, y, [None] * len(p)) == legacy
    mixed = [q if i % 2 else None for i, q in enumerate(p)]
    assert _policy_gain(always, served, y, mixed) is not None
    x, styles, stars = rated(400, 0)
    _, before = train_style_reward(x, styles, stars, tail=0)
    _, none_logged = train_style_reward(x, styles, stars, tail=0, propensities=[None] * 400)
    _, uniform = train_style_reward(x, styles, stars, tail=0, propensities=[0.25] * 400)
    assert none_logged == before and uniform.gain_over_plain == pytest.approx(
        before.gain_over_plain, abs=0.05
    )
    with pytest.raises(ValueError, match="3 propensities"):
        train_style_reward(x, styles, stars, propensities=[0.25] * 3)
