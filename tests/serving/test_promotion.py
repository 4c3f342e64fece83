"""The promotion rule: a challenger replaces the champion only when it is better beyond noise and no intent pays."""

from __future__ import annotations

import random

import pytest

from serving.promotion import PromotionRule, check_disjoint, compare, mcnemar_p, paired_interval


def outcomes(n: int, champion: float, challenger: float, seed: int = 0) -> tuple[list[bool], list[bool]]:
    """Paired outcomes with the given exact-match rates; the teams agree wherever they can."""
    rng = random.Random(seed)
    a = [i < round(champion * n) for i in range(n)]
    b = [i < round(challenger * n) for i in range(n)]
    order = list(range(n))
    rng.shuffle(order)
    return [a[i] for i in order], [b[i] for i in order]


def test_mcnemar_is_exact_and_symmetric():
    assert mcnemar_p(0, 0) == 1.0
    assert mcnemar_p(3, 3) == 1.0
    assert mcnemar_p(0, 10) == pytest.approx(2 / 2**10)
    assert mcnemar_p(2, 9) == mcnemar_p(9, 2)
    assert mcnemar_p(2, 9) == pytest.approx(2 * sum(__import__("math").comb(11, i) for i in range(3)) / 2**11)


def test_paired_interval_narrows_with_more_tickets_and_centres_on_the_gain():
    low, high = paired_interval(5, 15, 100)
    assert low < 0.10 < high
    wide, narrow = paired_interval(5, 15, 100), paired_interval(50, 150, 1000)
    assert (narrow[1] - narrow[0]) < (wide[1] - wide[0])


def test_a_clearly_better_challenger_is_promoted_with_its_figures_in_words():
    champion, challenger = outcomes(400, 0.70, 0.85)
    result = compare(champion, challenger, [["refund"]] * 400)
    assert result.promote, result.reason
    assert result.gain == pytest.approx(0.15)
    assert "better by 15.0 points" in result.reason
    assert result.as_dict()["per_intent"]["refund"]["change"] == pytest.approx(0.15)


def test_too_few_tickets_or_too_small_a_gain_keeps_the_champion():
    champion, challenger = outcomes(40, 0.5, 0.9)
    small = compare(champion, challenger, [["a"]] * 40)
    assert not small.promote and "not enough evaluation tickets" in small.reason
    champion, challenger = outcomes(400, 0.80, 0.81)
    marginal = compare(champion, challenger, [["a"]] * 400)
    assert not marginal.promote and "below the declared margin of 2.0" in marginal.reason


def test_a_gain_within_noise_is_not_a_gain():
    # +3 points, but the teams disagree on many tickets: the interval reaches below zero
    a = [True] * 60 + [False] * 40 + [True] * 20 + [False] * 80
    b = [False] * 60 + [True] * 40 + [True] * 20 + [True] * 26 + [False] * 54
    result = compare(a, b, [["a"]] * 200, PromotionRule(margin=0.02))
    assert result.gain > 0.02 and not result.promote
    assert "within noise" in result.reason


def test_an_intent_that_loses_more_than_the_tolerance_blocks_promotion_even_with_a_large_gain():
    champion = [True] * 100 + [False] * 200 + [True] * 50
    challenger = [True] * 100 + [True] * 200 + [False] * 50
    intents = [["refund"]] * 300 + [["warranty"]] * 50
    result = compare(champion, challenger, intents)
    assert result.gain > 0.4 and not result.promote
    assert "warranty (-100.0 points on 50 tickets)" in result.reason
    # an intent with too few tickets to judge does not block, and says so in the breakdown
    result = compare(champion[:-31], challenger[:-31], intents[:-31])
    assert result.per_intent["warranty"].judged is False and result.promote


def test_out_of_scope_tickets_are_their_own_group():
    result = compare(
        [True, False], [True, True], [[], ["a"]], PromotionRule(min_tickets=1, min_intent_tickets=1)
    )
    assert set(result.per_intent) == {"(none)", "a"}


def test_the_slice_must_be_disjoint_from_training_data_and_the_same_for_both_teams():
    check_disjoint([1, 2, 3], [4, 5])
    with pytest.raises(ValueError, match="shares 1 ticket"):
        check_disjoint([1, 2, 3], [3, 4])
    with pytest.raises(ValueError, match="same tickets"):
        compare([True], [True, False], [["a"]])
    with pytest.raises(ValueError):
        PromotionRule(margin=1.5)
