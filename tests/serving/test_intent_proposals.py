"""Out-of-scope tickets grouped by meaning become proposed intents; one-off tickets propose nothing."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.backbone import Backbone
from serving.intent_proposals import group_by_meaning, propose_intents

UNPLACED = {
    "double_charge": [
        "I was charged twice for the same order",
        "my card got billed two times for one purchase",
        "double charge on my credit card, please fix",
        "you took the payment twice!!",
        "why do I see two identical charges on my statement",
        "charged 2x for order 5531",
    ],
    "cancel": [
        "please cancel my order before it ships",
        "I want to cancel the order I placed yesterday",
        "cancel order 8812 please, changed my mind",
        "how do I cancel an order I just made",
        "stop my order, I don't want it anymore",
    ],
    "exchange": [
        "can I exchange these shoes for a bigger size",
        "the jeans are too small, exchange for size 34?",
        "I'd like a different size of the jacket",
        "exchange for a smaller size please",
    ],
}
NOISE = ["thanks!", "what's the weather like", "do you sell gift cards", "lol ok"]


@pytest.fixture(scope="module")
def vectors():
    backbone = Backbone.load("default", pooling="mean", max_length=64)
    texts = [t for group in UNPLACED.values() for t in group] + NOISE
    with torch.no_grad():
        return texts, backbone.encode(texts).numpy()


def test_tickets_that_mean_the_same_group_together_on_the_real_backbone(vectors):
    texts, v = vectors
    proposals = propose_intents(texts, v)
    found = {frozenset(texts[i] for i in p.members) for p in proposals}
    assert found == {frozenset(group) for group in UNPLACED.values()}
    names = {p.name for p in proposals}
    assert any("cancel" in n for n in names) and any("exchange" in n or "size" in n for n in names)
    biggest = proposals[0]
    assert biggest.tickets == 6 and biggest.share == pytest.approx(6 / len(texts))
    assert biggest.examples[0] in UNPLACED["double_charge"] and biggest.description.startswith(
        "Tickets about"
    )


def test_a_group_close_to_a_catalogue_intent_says_which(vectors):
    texts, v = vectors
    refund = v[: len(UNPLACED["double_charge"])].mean(axis=0)  # an intent whose examples are these tickets
    proposals = propose_intents(texts, v, catalogue={"billing_problem": refund, "other": -refund})
    by_size = {p.tickets: p for p in proposals}
    assert by_size[6].resembles == "billing_problem" and by_size[6].resemblance > 0.9
    assert by_size[5].resembles is None


def test_noise_and_small_groups_propose_nothing():
    rng = np.random.default_rng(0)
    scattered = rng.normal(size=(30, 64))  # random directions in 64 dimensions are nearly orthogonal
    assert propose_intents([f"t{i}" for i in range(30)], scattered) == []
    assert propose_intents([], np.zeros((0, 8))) == []
    tight = np.array([[1.0, 0.0], [0.99, 0.05], [0.0, 1.0]])
    assert group_by_meaning(tight, similarity=0.9, min_tickets=2) == [[0, 1]]
    with pytest.raises(ValueError, match="one vector per ticket"):
        propose_intents(["a"], np.zeros((2, 3)))


def test_a_lone_group_is_named_with_its_common_words_in_the_order_tickets_say_them():
    """Every unplaced ticket in one group scores every word alike: the words most tickets use win, said as the
    tickets say them ("gift_card", not the alphabetical "card_gift")."""
    texts = [
        "My gift card code is rejected at checkout",
        "The gift card balance shows zero",
        "Gift card expired before I used it",
        "The gift card PIN is scratched off",
    ]
    (proposal,) = propose_intents(texts, np.ones((len(texts), 4)))
    assert proposal.name == "gift_card"
