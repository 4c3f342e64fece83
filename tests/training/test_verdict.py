"""The verdict's statistics: bootstrap intervals, the paired difference, and the sentence for each outcome."""

import numpy as np
import pytest

from training.verdict import bootstrap_interval, judge, paired_difference, score_arm


def test_bootstrap_interval_covers_the_mean_and_narrows_with_more_episodes():
    rng = np.random.default_rng(1)
    few = rng.binomial(1, 0.6, size=40).astype(float)
    many = rng.binomial(1, 0.6, size=1600).astype(float)
    lo_few, hi_few = bootstrap_interval(few)
    lo_many, hi_many = bootstrap_interval(many)
    assert lo_few <= few.mean() <= hi_few
    assert lo_many <= many.mean() <= hi_many
    # the standard error of a proportion falls as 1/sqrt(n): 40x the episodes, about 1/6.3 the width
    assert (hi_many - lo_many) < (hi_few - lo_few) / 4
    # and the 95 % interval of 1,600 Bernoulli(0.6) episodes is about ±1.96·sqrt(0.24/1600) = ±0.024
    assert (hi_many - lo_many) == pytest.approx(2 * 1.96 * np.sqrt(0.24 / 1600), rel=0.2)


def test_bootstrap_interval_of_constant_scores_has_no_width_and_empty_is_refused():
    assert bootstrap_interval([0.5, 0.5, 0.5]) == (0.5, 0.5)
    assert bootstrap_interval([1.0]) == (1.0, 1.0)
    with pytest.raises(ValueError):
        bootstrap_interval([])


def test_pairing_sees_a_steady_gain_that_unpaired_intervals_would_blur():
    """Episodes of very different difficulty; the learned arm is 0.05 better on every one of them."""
    difficulty = np.linspace(0.0, 0.9, 50)
    baseline = difficulty
    learned = difficulty + 0.05
    mean, low, high = paired_difference(learned, baseline)
    assert mean == pytest.approx(0.05)
    assert low == pytest.approx(0.05) and high == pytest.approx(0.05)
    a, b = score_arm("learned", learned), score_arm("rules", baseline)
    assert a.low < b.high  # the per-arm intervals overlap although the gain is certain


def test_paired_arms_must_share_the_episodes():
    with pytest.raises(ValueError, match="same episodes"):
        paired_difference([1.0, 0.0], [1.0])


def test_marl_paid_names_the_gain_its_interval_and_the_cost():
    rng = np.random.default_rng(0)
    rules = rng.binomial(1, 0.5, size=400).astype(float)
    imitation = rng.binomial(1, 0.45, size=400).astype(float)
    mappo = np.where(rng.random(400) < 0.25, 1.0, rules)  # fixes a quarter of the misses: about +12 points
    v = judge(
        {"rules": rules, "imitation": imitation, "mappo": mappo},
        costs={"rules": [4.0] * 400, "imitation": [4.0] * 400, "mappo": [3.9] * 400},
        score_name="resolved",
    )
    assert v.outcome == "marl_paid"
    assert v.baseline == "rules"
    assert 0.08 < v.difference < 0.18 and 0 < v.low < v.difference < v.high
    assert v.sentence.startswith(
        f"MAPPO scores {round(v.difference * 100)} points more resolved than the best rules (CI "
    )
    assert v.sentence.endswith("at the same or lower cost: MARL paid")


def test_a_gain_bought_with_more_steps_is_said_so():
    rules = [0.0, 1.0] * 100
    mappo = [1.0, 1.0] * 100
    v = judge({"rules": rules, "mappo": mappo}, costs={"rules": [2.0] * 200, "mappo": [3.0] * 200})
    assert v.outcome == "marl_paid_costlier"
    assert "costs 50% more per episode (3.00 vs 2.00)" in v.sentence


def test_no_better_within_noise_says_supervised_is_enough_when_imitation_is_the_best_baseline():
    rng = np.random.default_rng(3)
    imitation = rng.binomial(1, 0.9, size=200).astype(float)
    mappo = np.roll(imitation, 1)  # the same success rate, its misses on other episodes
    v = judge({"rules": [0.7] * 200, "imitation": imitation, "mappo": mappo})
    assert v.baseline == "imitation"
    assert v.outcome == "no_better"
    assert v.low <= 0 <= v.high
    assert v.sentence.endswith("supervised learning is enough")
    assert "no better than imitation of the rules (supervised) within noise" in v.sentence


def test_worse_than_rules_and_no_baseline():
    v = judge({"rules": [1.0] * 50, "mappo": [0.0, 1.0] * 25})
    assert v.outcome == "worse" and v.high < 0
    assert "50 points fewer" in v.sentence and v.sentence.endswith("use rules, MARL did not pay")
    alone = judge({"mappo": [1.0, 0.0]}, learned="mappo")
    assert alone.outcome == "no_baseline" and alone.baseline is None
    with pytest.raises(ValueError, match="learned arm"):
        judge({"rules": [1.0]}, learned="mappo")


def test_verdict_to_dict_is_plain_json():
    import json

    v = judge({"rules": [0.0, 1.0, 1.0], "mappo": [1.0, 1.0, 1.0]})
    doc = json.loads(json.dumps(v.to_dict()))
    assert doc["learned"] == "mappo" and doc["baseline"] == "rules"
    assert [a["name"] for a in doc["arms"]] == ["rules", "mappo"]
    assert doc["arms"][1]["mean"] == 1.0 and doc["arms"][1]["episodes"] == 3


def test_a_baseline_that_costs_nothing_is_no_division_by_zero():
    v = judge({"rules": [0.0] * 20, "mappo": [1.0] * 20}, costs={"rules": [0.0] * 20, "mappo": [1.0] * 20})
    assert v.outcome == "marl_paid_costlier"
    assert "costs more per episode (1.00 vs 0.00)" in v.sentence


def test_other_baseline_arms_can_be_named():
    v = judge(
        {"alone": [0.0, 1.0] * 50, "reinforce_comm": [1.0] * 100},
        learned="reinforce_comm",
        baselines=("alone",),
    )
    assert v.baseline == "alone" and v.outcome == "marl_paid"
    assert v.sentence.startswith("learned communication (REINFORCE) scores 50 points more")


def test_a_bound_under_one_point_is_not_written_as_zero():
    v = judge({"rules": [0.0] * 200, "mappo": [1.0] * 2 + [0.0] * 198})
    assert v.low == 0.0 and "CI 0 to" in v.sentence  # a bound at zero stays "0"
    mixed = judge({"rules": [0.0] * 1000, "mappo": [1.0] * 12 + [0.0] * 988})
    assert 0 < mixed.low < 0.0095
    assert f"CI {mixed.low * 100:.1f} to" in mixed.sentence


def test_a_small_loss_keeps_its_minus_sign_and_halves_round_away_from_zero():
    # MAPPO misses one of 200 episodes the rules resolve: -0.5 points, which must not read as a gain
    rules = [1.0] * 200
    mappo = [0.0] + [1.0] * 199
    v = judge({"rules": rules, "mappo": mappo})
    assert v.difference == pytest.approx(-0.005)
    assert "(−0.5 points" in v.sentence
    # -2.5 and 2.5 points are "−3" and "3" (not banker's "2")
    from training.verdict import _signed_points

    assert _signed_points(-0.025) == "−3" and _signed_points(0.025) == "3" and _signed_points(0.0) == "0"


def test_one_point_is_singular():
    # MAPPO misses 2 of 200 episodes the rules resolve: "1 point fewer", never "1 points"
    rules = [1.0] * 200
    mappo = [0.0, 0.0] + [1.0] * 198
    v = judge({"rules": rules, "mappo": mappo})
    assert "1 point," in v.sentence and "1 points" not in v.sentence, v.sentence
    from training.verdict import _with_unit

    assert (
        _with_unit("−1") == "−1 point"
        and _with_unit("0.5") == "0.5 points"
        and _with_unit("12") == "12 points"
    )
