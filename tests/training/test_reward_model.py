"""The reward model: learns a separable rating set above chance, reports held-out figures, round-trips
through safetensors, and serves as a human-feedback source."""

import pytest
import torch

from training.reward import HumanFeedbackSource, RewardComposer
from training.reward_model import (
    RewardModelError,
    RewardModelFeedback,
    heldout_split,
    load_reward_model,
    save_reward_model,
    train_pairwise_reward_model,
    train_reward_model,
)

GOOD = [
    "Your refund of {} euros has been issued; it reaches your card within three days.",
    "I have re-sent the parcel {} with express delivery and emailed you the tracking link.",
    "The password reset link for account {} is in your inbox; it works for one hour.",
    "Order {} was cancelled before shipping and the full amount is already refunded.",
    "I changed the delivery address of order {} as you asked; it ships tomorrow.",
]
BAD = [
    "error {}",
    "I don't know. {}",
    "asdf qwerty {} lorem",
    "Please stop writing to us. {}",
    "null undefined {} NaN",
]


def toy_rated_texts() -> tuple[list[str], list[int]]:
    """Helpful answers rated 5, useless ones rated 1: separable by meaning, not by a token."""
    texts, ratings = [], []
    for number in range(4):
        for good, bad in zip(GOOD, BAD, strict=True):
            texts += [good.format(1000 + number), bad.format(1000 + number)]
            ratings += [5, 1]
    return texts, ratings


@pytest.fixture(scope="module")
def backbone():
    from agents.backbone import Backbone

    return Backbone.load()


def test_learns_a_separable_rating_set_above_chance_on_the_backbone(backbone):
    texts, ratings = toy_rated_texts()
    head, metrics = train_reward_model(backbone.encode(texts), ratings, heldout_share=0.25, seed=3)
    assert (metrics.n_train, metrics.n_heldout) == (30, 10)
    assert metrics.accuracy > metrics.baseline_accuracy
    assert metrics.accuracy >= 0.8
    assert metrics.mae < 1.5
    source = RewardModelFeedback(head, backbone.encode)
    unseen_good, unseen_bad = source.score_texts(
        ["Your order 77 was refunded in full today.", "qwerty error null"]
    )
    assert unseen_good > 0.5 > unseen_bad


def test_progress_is_reported_and_reaches_the_end():
    x = torch.cat([torch.randn(12, 8) + 3, torch.randn(12, 8) - 3])
    seen: list[float] = []
    _, metrics = train_reward_model(x, [5] * 12 + [1] * 12, progress=seen.append)
    assert seen and seen == sorted(seen) and seen[-1] == pytest.approx(1.0)
    assert metrics.accuracy == 1.0 and metrics.n_heldout == 6


def test_round_trip_through_safetensors_keeps_predictions_and_metadata(tmp_path):
    x = torch.cat([torch.randn(10, 6) + 2, torch.randn(10, 6) - 2])
    head, metrics = train_reward_model(x, [4] * 10 + [2] * 10)
    path = save_reward_model(
        head, tmp_path / "rm.safetensors", {"backbone": "toy", "accuracy": metrics.accuracy}
    )
    assert path.read_bytes()[8:9] == b"{"  # a safetensors JSON header, not a pickle
    loaded, meta = load_reward_model(path)
    assert meta == {"backbone": "toy", "accuracy": metrics.accuracy}
    assert torch.allclose(loaded.expected_rating(x), head.expected_rating(x))


@pytest.mark.parametrize("kind", ["rating", "pairwise"])
def test_is_a_human_feedback_source_for_the_reward_composer(kind):
    x = torch.cat([torch.randn(8, 4) + 4, torch.randn(8, 4) - 4])
    if kind == "rating":
        head, _ = train_reward_model(x, [5] * 8 + [1] * 8)
    else:  # a Bradley–Terry head: the first eight preferred to the last eight
        head, _ = train_pairwise_reward_model(x[:8], x[8:], ["A"] * 8)
    texts = {"run/1": 0, "run/2": 15}
    source = RewardModelFeedback(
        head, lambda batch: x[[texts[t] for t in batch]], text_of=lambda k: k if k in texts else None
    )
    assert isinstance(source, HumanFeedbackSource)
    assert source.rating("run/1") > 0.8 and source.rating("run/2") < 0.2
    assert source.rating("run/unknown") is None
    composer = RewardComposer({"human_feedback": {"p": 1.0}}, human_feedback=source)
    assert composer.compose({}, "p", episode_key="run/1") == pytest.approx(source.rating("run/1"))


def test_bad_training_data_is_refused():
    with pytest.raises(RewardModelError, match="at least 4"):
        train_reward_model(torch.zeros(3, 2), [1, 2, 3])
    with pytest.raises(RewardModelError, match="from 1 to 5"):
        train_reward_model(torch.zeros(4, 2), [1, 2, 3, 6])
    with pytest.raises(RewardModelError, match="does not exist"):
        load_reward_model("/nonexistent/rm.safetensors")


def test_heldout_split_is_deterministic_and_disjoint():
    train, held = heldout_split(10, 0.3, seed=1)
    again = heldout_split(10, 0.3, seed=1)
    assert train.tolist() == again[0].tolist() and held.tolist() == again[1].tolist()
    assert len(held) == 3 and not set(train) & set(held) and len(train) + len(held) == 10
