"""The Bradley–Terry reward model: learns a planted preference between replies to tickets from pairwise
judgements on the real backbone (held-out pairwise accuracy well above chance, with its n and the warning),
skips ties, round-trips through safetensors as its own kind, and scores unseen replies as a reward term
(the reward composer using it: test_reward_model.py)."""

import random

import pytest
import torch

from training.reward_model import (
    MIN_RELIABLE_HELDOUT,
    PreferenceHead,
    RatingHead,
    RewardModelError,
    RewardModelFeedback,
    heldout_warning,
    load_reward_model,
    pair_verdicts,
    save_reward_model,
    train_pairwise_reward_model,
    train_reward_model,
)

TICKETS = [
    "Where is my parcel {n}? It should have arrived on Monday.",
    "I was charged twice for order {n}, please refund one payment.",
    "The {item} from order {n} arrived broken.",
    "Can I change the delivery address of order {n}?",
    "I want to cancel order {n} before it ships.",
    "My {item} (order {n}) does not switch on any more.",
]
ITEMS = ["lamp", "kettle", "chair", "headphones", "toaster", "backpack"]
# The planted preference: annotators prefer a reply that acts on the ticket over one that does not help.
HELPFUL = [
    "Hello, I have checked order {n}: the {item} is with the courier and arrives tomorrow. Kind regards",
    "Hello, I refunded the duplicate payment for order {n}; it reaches your card within three days.",
    "Hello, a replacement {item} for order {n} ships today, and you can keep the broken one.",
    "Hello, I updated the delivery address of order {n}; the {item} ships there tomorrow.",
    "Hello, order {n} is cancelled and the full amount is on its way back to you.",
    "Hello, I opened a repair for your {item} (order {n}); a prepaid label is in your inbox.",
]
UNHELPFUL = [
    "Please read our FAQ. {n}",
    "We cannot help with this. Ticket {n} closed.",
    "error {n} null",
    "Thank you for your message about {item}. Someone may look at it.",
    "I don't know where order {n} is.",
    "Contact the manufacturer of the {item}.",
]


def planted_pairs(n_pairs: int, seed: int, noise: float = 0.0, ties: int = 0):
    """(texts A, texts B, verdicts): one ticket, a helpful and an unhelpful reply in random A/B order, judged
    for the helpful one (a share ``noise`` of verdicts flipped); ``ties`` more pairs judged "tie"."""
    rng = random.Random(seed)
    a, b, verdicts = [], [], []
    for i in range(n_pairs + ties):
        fill = {"n": 10_000 + rng.randrange(90_000), "item": rng.choice(ITEMS)}
        ticket = rng.choice(TICKETS).format(**fill)
        good = f"Ticket: {ticket}\nReply: {rng.choice(HELPFUL).format(**fill)}"
        bad = f"Ticket: {ticket}\nReply: {rng.choice(UNHELPFUL).format(**fill)}"
        good_is_a = rng.random() < 0.5
        a.append(good if good_is_a else bad)
        b.append(bad if good_is_a else good)
        if i >= n_pairs:
            verdicts.append("tie")
            continue
        winner = "A" if good_is_a else "B"
        if rng.random() < noise:
            winner = "B" if winner == "A" else "A"
        verdicts.append(winner)
    return a, b, verdicts


@pytest.fixture(scope="module")
def backbone():
    from agents.backbone import Backbone

    return Backbone.load()


def test_learns_a_planted_preference_between_replies_on_the_backbone(backbone):
    texts_a, texts_b, verdicts = planted_pairs(160, seed=7, noise=0.1, ties=12)
    head, metrics = train_pairwise_reward_model(
        backbone.encode(texts_a), backbone.encode(texts_b), verdicts, heldout_share=0.25, seed=1
    )
    assert isinstance(head, PreferenceHead) and metrics.head == "pairwise"
    assert (metrics.n_train, metrics.n_heldout, metrics.n_ties) == (120, 40, 12)  # ties skipped
    # 10 % of the held-out verdicts are flipped on purpose: the ceiling is about 0.9
    assert metrics.accuracy >= 0.75 > metrics.baseline_accuracy == 0.5
    assert heldout_warning(metrics.n_heldout, "pair") is None
    print(
        f"planted preference: held-out pairwise accuracy {metrics.accuracy:.3f} on {metrics.n_heldout} pairs"
    )

    # Fresh tickets and replies never seen: the helpful reply scores higher, and as a reward term too.
    fresh_a, fresh_b, fresh_verdicts = planted_pairs(30, seed=99)
    source = RewardModelFeedback(head, backbone.encode)
    rewards_a, rewards_b = source.score_texts(fresh_a), source.score_texts(fresh_b)
    agree = [(ra > rb) == (v == "A") for ra, rb, v in zip(rewards_a, rewards_b, fresh_verdicts, strict=True)]
    assert sum(agree) / len(agree) >= 0.8
    assert all(0.0 < r < 1.0 for r in rewards_a + rewards_b)


def test_few_held_out_pairs_are_reported_with_their_number_and_a_warning(backbone):
    texts_a, texts_b, verdicts = planted_pairs(24, seed=3)
    _, metrics = train_pairwise_reward_model(backbone.encode(texts_a), backbone.encode(texts_b), verdicts)
    assert metrics.n_heldout == 6 and metrics.n_train == 18
    warning = heldout_warning(metrics.n_heldout, "pair")
    assert (
        warning.startswith("only 6 held-out pairs") and f"at least {MIN_RELIABLE_HELDOUT} held out" in warning
    )
    assert "judge more pairs" in warning


def test_a_planted_direction_in_a_tiny_embedding_is_recovered():
    torch.manual_seed(0)
    truth = torch.randn(16)
    a, b = torch.randn(400, 16), torch.randn(400, 16)
    p_a = torch.sigmoid(2.0 * (a - b) @ truth)  # Bradley–Terry with a planted score
    verdicts = ["A" if u < p else "B" for u, p in zip(torch.rand(400).tolist(), p_a.tolist(), strict=True)]
    seen: list[float] = []
    head, metrics = train_pairwise_reward_model(a, b, verdicts, progress=seen.append)
    assert metrics.n_heldout == 100 and metrics.accuracy >= 0.75
    assert seen == sorted(seen) and seen[-1] == pytest.approx(1.0)
    learned = head.linear.weight.detach().squeeze(0) / head.std
    assert torch.nn.functional.cosine_similarity(learned, truth, dim=0) > 0.9


def test_majority_verdicts_and_ties():
    assert pair_verdicts([["A"], ["B", "B", "A"], ["tie"], ["A", "B"], ["A", "tie"], []]) == [
        "A", "B", "tie", "tie", "A", "tie",
    ]  # fmt: skip
    with pytest.raises(RewardModelError, match="A, B or tie"):
        pair_verdicts([["left"]])
    with pytest.raises(RewardModelError, match="at least 4 pairs judged A or B, got 3 \\(2 ties skipped\\)"):
        train_pairwise_reward_model(torch.zeros(5, 2), torch.ones(5, 2), ["A", "B", "A", "tie", "tie"])
    with pytest.raises(RewardModelError, match="verdicts"):
        train_pairwise_reward_model(torch.zeros(5, 2), torch.ones(4, 2), ["A"] * 5)


def test_round_trip_keeps_the_kind_scores_and_metadata(tmp_path):
    x = torch.randn(40, 6)
    a, b = x[:20] + 2, x[20:] - 2
    head, metrics = train_pairwise_reward_model(a, b, ["A"] * 20)
    path = save_reward_model(
        head, tmp_path / "bt.safetensors", {"backbone": "toy", "accuracy": metrics.accuracy}
    )
    assert path.read_bytes()[8:9] == b"{"  # a safetensors JSON header, not a pickle
    loaded, meta = load_reward_model(path)
    assert isinstance(loaded, PreferenceHead) and meta == {"backbone": "toy", "accuracy": metrics.accuracy}
    assert torch.allclose(loaded.reward(x), head.reward(x))
    rating, _ = train_reward_model(x, [5] * 20 + [1] * 20)  # a rating head still loads as one
    assert isinstance(
        load_reward_model(save_reward_model(rating, tmp_path / "r.safetensors", {}))[0], RatingHead
    )
