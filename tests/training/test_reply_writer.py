"""The team's writer (training/reply_writer.py): REINFORCE with a baseline learns which reply style a kind of
ticket wants from a reward alone; the loss matches a hand computation; the head survives a save beside a
checkpoint, and a checkpoint without one gives none (every reply plain)."""

from __future__ import annotations

import math
import random

import pytest
import torch

from training.reply_writer import (
    EMBEDDING,
    MAX_EXPLORE,
    PLAIN,
    STYLES,
    SURFACE,
    WITH_SURFACE,
    WRITER_FILE,
    WriterConfig,
    WriterHead,
    explored_style,
    load_writer,
    pair_features,
    reinforce_loss,
    save_writer,
    style_propensity,
    ticket_features,
    train_writer,
    untrusted_reward_model,
)


def clustered_tickets(n: int = 600, dim: int = 16, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Unit vectors around one centre per style: the style a ticket wants is its cluster."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.nn.functional.normalize(torch.randn(len(STYLES), dim, generator=g), dim=-1)
    wanted = torch.randint(len(STYLES), (n,), generator=g)
    x = centres[wanted] + 0.3 * torch.randn(n, dim, generator=g)
    return torch.nn.functional.normalize(x, dim=-1), wanted


def test_the_writer_learns_a_criterion_from_a_noisy_reward_alone():
    x, wanted = clustered_tickets()
    noise = torch.Generator().manual_seed(1)

    def reward_of(idx: torch.Tensor, act: torch.Tensor) -> torch.Tensor:  # 0.8 right, 0.2 wrong, plus noise
        right = (act == wanted[idx]).float()
        return 0.2 + 0.6 * right + 0.1 * torch.randn(len(idx), generator=noise)

    head, seen = train_writer(x[:400], reward_of, WriterConfig(updates=150, batch_size=64, seed=0))
    chosen = head.choose(x[400:])  # tickets it never trained on
    accuracy = sum(STYLES.index(c) == int(w) for c, w in zip(chosen, wanted[400:], strict=True)) / 200
    assert accuracy > 0.9  # chance: 0.25
    assert seen["reward_last"] > seen["reward_first"] + 0.2


def test_an_untrained_writer_is_uniform_and_the_loss_matches_a_hand_computation():
    head = WriterHead(3)
    assert torch.allclose(torch.softmax(head(torch.ones(1, 3)), -1), torch.full((1, 4), 0.25))
    logits = torch.tensor([[0.0, math.log(3.0), 0.0, 0.0]])  # π = (1/6, 1/2, 1/6, 1/6)
    loss = reinforce_loss(logits, torch.tensor([1]), torch.tensor([1.0]), baseline=0.25, entropy_coef=0.0)
    assert float(loss) == pytest.approx(-(1.0 - 0.25) * math.log(0.5))
    entropy = -(3 * (1 / 6) * math.log(1 / 6) + 0.5 * math.log(0.5))
    with_bonus = reinforce_loss(logits, torch.tensor([1]), torch.tensor([1.0]), 0.25, entropy_coef=0.1)
    assert float(with_bonus) == pytest.approx(float(loss) - 0.1 * entropy)


def test_a_writer_saved_beside_a_checkpoint_loads_back_and_none_means_plain(tmp_path):
    assert load_writer(tmp_path) is None
    head = WriterHead(5)
    with torch.no_grad():
        head.linear.bias[STYLES.index("brief")] = 1.0
    assert save_writer(head, tmp_path, {"why": "test"}) == tmp_path / WRITER_FILE
    loaded = load_writer(tmp_path)
    assert loaded.styles == STYLES and loaded.choose(torch.randn(3, 5)) == ["brief"] * 3
    assert PLAIN == "plain"


def test_pair_features_hold_both_embeddings_and_their_product():
    t, r = torch.tensor([[3.0, 4.0]]), torch.tensor([[1.0, 0.0]])
    assert torch.allclose(pair_features(t, r), torch.tensor([[0.6, 0.8, 1.0, 0.0, 0.6, 0.0]]))


def test_a_reward_model_no_better_than_the_most_common_star_teaches_no_writer():
    assert untrusted_reward_model(0.45, 0.34, 125) is None
    assert "no better than always giving the most common star" in untrusted_reward_model(0.30, 0.34, 125)
    assert "fewer than 30" in untrusted_reward_model(0.9, 0.34, 12)


def test_ticket_features_add_length_and_tone_to_the_unit_embedding_and_a_writer_reading_them_round_trips(
    tmp_path,
):
    rows = ticket_features(torch.tensor([[3.0, 4.0], [1.0, 0.0]]), ["Where is it?!", "HELP now"])
    assert rows.shape == (2, 2 + len(SURFACE))
    torch.testing.assert_close(rows[0, :2], torch.tensor([0.6, 0.8]))
    torch.testing.assert_close(rows[0, 2:], torch.tensor([math.log1p(3), 1.0, 1.0, 1 / 9]))
    torch.testing.assert_close(rows[1, 2:], torch.tensor([math.log1p(2), 0.0, 0.0, 4 / 7]))
    head = WriterHead(rows.shape[1], inputs=WITH_SURFACE)
    with torch.no_grad():
        head.linear.weight[STYLES.index("apologetic"), 2 + SURFACE.index("exclamations")] = 5.0
    save_writer(head, tmp_path, {})
    loaded = load_writer(tmp_path)
    assert loaded.inputs == WITH_SURFACE
    assert loaded.choose_for(torch.tensor([[3.0, 4.0], [1.0, 0.0]]), ["Where is it?!", "fine"]) == [
        "apologetic",
        "plain",
    ]


def test_an_older_writer_reads_the_embedding_alone():
    head = WriterHead(2)
    assert head.inputs == EMBEDDING
    assert head.choose_for(torch.ones(1, 2), ["any text!"]) == ["plain"]


def test_explored_styles_are_a_bounded_declared_share_of_other_styles():
    rng = random.Random(0)
    drawn = [explored_style("brief", 0.2, rng) for _ in range(5000)]
    explored = [d for d in drawn if d is not None]
    assert abs(len(explored) / len(drawn) - 0.2) < 0.02
    assert set(explored) == set(STYLES) - {"brief"}
    assert explored_style("plain", 0.0, rng) is None
    with pytest.raises(ValueError, match="explored share"):
        explored_style("plain", MAX_EXPLORE + 0.01, rng)


def test_the_logged_propensity_is_the_probability_each_style_is_served_with():
    """Decision 0039: the writer's choice is served with 1 - share, each other style with share / 3; the
    probabilities sum to one and match how often `explored_style` serves each style."""
    rng, share = random.Random(1), 0.2
    served = [explored_style("brief", share, rng) or "brief" for _ in range(20000)]
    for style in STYLES:
        p = style_propensity("brief", style, share)
        assert 0.0 < p <= 1.0 and abs(served.count(style) / len(served) - p) < 0.01
    assert math.isclose(sum(style_propensity("brief", s, share) for s in STYLES), 1.0)
    assert style_propensity("plain", "plain", 0.0) == 1.0  # a writer that never explores: its choice, surely
