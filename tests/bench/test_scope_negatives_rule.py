"""bench/scope_negatives.py's dev rule on a small made-up study: the chosen threshold is the most permissive one
whose pooled out-of-scope dev share answered stays within one point of the gate alone's, and the gated rule
never turns away a ticket the gate keeps."""

import numpy as np

from bench.scope_negatives import DEV_IN, DEV_OUT, TEST_IN, away_mask, choose, figures


def study() -> dict:
    # in-scope dev: 4 tickets, 2 under the floor (signals 0.9 and 0.3); validation: none under the floor
    found = {
        DEV_IN[0]: {"below": [True, True, False, False], "s": [0.9, 0.3, 0.1, 0.8], "exact": [True] * 4},
        "validation": {"below": [False] * 3, "s": [0.2, 0.9, 0.9]},
        TEST_IN[0]: {"below": [True, False], "s": [0.1, 0.1], "exact": [True, True]},
    }
    # out-of-scope dev, pooled 100 tickets: 90 under the floor; of those, 5 at signal 0.85, the rest 0.05
    outside = [(True, 0.85)] * 5 + [(True, 0.05)] * 85 + [(False, 0.5)] * 10
    half = len(outside) // 2
    for name, part in zip(DEV_OUT, (outside[::2], outside[1::2]), strict=True):
        assert len(part) == half
        found[name] = {"below": [b for b, _ in part], "s": [v for _, v in part]}
    return found


def test_gated_rule_picks_the_most_permissive_threshold_within_one_point():
    found = study()
    chosen, dev = choose(found, "s", gated=True)
    assert abs(dev["budget"] - 0.11) < 1e-9  # gate alone: 10 of 100 answered, plus one point
    # sparing the in-scope 0.9 ticket (tau ≤ 0.9) lets the five 0.85 tickets through at tau ≤ 0.85: 15 %
    assert chosen == 0.9
    assert dev["curve"]["0.9"][DEV_IN[0]]["away"] == 0.25
    assert abs(dev["curve"]["0.85"]["pooled_oos_dev_answered"] - 0.15) < 1e-9


def test_gated_rule_keeps_what_the_gate_keeps_and_alone_does_not():
    found = study()
    gated = away_mask(found[TEST_IN[0]], "s", 0.5, gated=True)
    alone = away_mask(found[TEST_IN[0]], "s", 0.5, gated=False)
    assert gated.tolist() == [True, False] and alone.tolist() == [True, True]
    assert figures(found, TEST_IN[0], "s", 0.5, gated=False) == {"away": 1.0, "before": 1.0, "after": 0.0}
    assert np.isclose(figures(found, TEST_IN[0], "s", None, gated=True)["after"], 0.5)
