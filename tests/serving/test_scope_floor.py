"""The scope floor's rule (serving/scope.py, decision 0031) on hand-made vectors, no backbone: the dev
tickets are in-scope anchors too, the floor is chosen on their scores with each left out in turn, and it
keeps the declared share of them."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from serving.scope import KEEP, ScopeGate, in_scope_floor

CATALOGUE = [{"name": "vpn", "description": "vpn"}, {"name": "printer", "description": "printer"}]
VECTORS = {  # unit-ish directions: two intents, a wording only the dev split has, and things outside
    "vpn: vpn": [1.0, 0.0, 0.0, 0.0],
    "printer: printer": [0.0, 1.0, 0.0, 0.0],
    "the vpn drops": [0.9, 0.1, 0.0, 0.0],
    "printer jammed": [0.1, 0.9, 0.0, 0.0],
    "tunnel keeps falling over": [0.3, 0.0, 0.95, 0.0],  # dev: a vpn ticket in words train never used
    "tunnel falls over again": [0.3, 0.0, 0.9, 0.1],
    "the tunnel fell over": [0.25, 0.0, 0.9, 0.05],
    "lasagne recipe": [0.0, 0.0, 0.0, 1.0],
}


def embed(texts):
    return torch.tensor([VECTORS[t] for t in texts], dtype=torch.float32)


def gate(dev=(), keep=KEEP):
    examples = [
        {"text": "the vpn drops", "intents": ["vpn"]},
        {"text": "printer jammed", "intents": ["printer"]},
    ]
    return ScopeGate(CATALOGUE, examples, embed, dev=dev, keep=keep)


def test_a_wording_only_the_dev_split_has_is_in_scope_and_names_its_intent():
    dev = [{"text": t, "intents": ["vpn"]} for t in ("tunnel keeps falling over", "tunnel falls over again")]
    with_dev = gate(dev)
    check = with_dev.check("the tunnel fell over")
    assert check["in_scope"] is True and check["nearest"] == "vpn" and check["by"] == "example"
    assert with_dev.check("lasagne recipe")["in_scope"] is False
    assert with_dev.describe()["anchors"] == 2 + 2 + 2 and with_dev.describe()["floor_tickets"] == 2


def test_the_floor_is_chosen_on_the_dev_tickets_each_left_out_in_turn():
    dev = [{"text": t, "intents": ["vpn"]} for t in ("tunnel keeps falling over", "tunnel falls over again")]
    with_dev = gate(dev)
    unit = {t: np.asarray(v) / np.linalg.norm(v) for t, v in VECTORS.items()}
    # each dev ticket's best cosine is to the other one, not to itself (1.0)
    expected = float(unit["tunnel keeps falling over"] @ unit["tunnel falls over again"])
    assert with_dev.floor_from == "dev" and with_dev.floor_scores == pytest.approx(
        [expected, expected], abs=1e-6
    )
    assert with_dev.floor == pytest.approx(expected - 1e-6, abs=1e-6)  # two tickets: none may drop


def test_without_dev_tickets_the_labelled_ones_are_left_out_in_turn():
    alone = gate()
    assert alone.floor_from == "leave_one_out" and len(alone.floor_scores) == 2
    assert max(alone.floor_scores) < 0.999  # not its own vector


def test_the_floor_keeps_the_declared_share():
    assert KEEP == 0.995
    scores = [k / 600 for k in range(600)]
    assert in_scope_floor(scores) == pytest.approx(3 / 600 - 1e-6)  # three of 600 may drop
    kept = np.mean(np.asarray(scores) > in_scope_floor(scores))
    assert kept >= KEEP


def test_a_few_dev_tickets_still_keep_the_declared_share():
    """Fewer than 200 scores cannot show the 0.5 % quantile; the lowest of 7 is about the 12 % one. Over
    many 7-ticket dev splits drawn from one in-scope population, the floor keeps 99 % of it in the median
    draw (97 % on average: seven scores misjudge the spread now and then)."""
    rng = np.random.default_rng(0)
    population = rng.normal(0.6, 0.08, 200_000)
    kept = [np.mean(population > in_scope_floor(list(rng.choice(population, 7)))) for _ in range(400)]
    lowest = [np.mean(population > min(rng.choice(population, 7))) for _ in range(400)]
    assert np.median(kept) >= 0.985 and np.mean(kept) >= 0.96
    assert np.mean(lowest) < 0.9  # the lowest of 7 (the rule before decision 0042) kept 0.88 on average
    many = list(rng.choice(population, 600))
    assert np.mean(population > in_scope_floor(many)) == pytest.approx(
        KEEP, abs=0.005
    )  # 600: read, not guessed
