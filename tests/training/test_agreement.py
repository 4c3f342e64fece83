"""Krippendorff's alpha against a hand-worked example and against the published reference values."""

import pytest

from training.agreement import alpha_by_unit_set, coincidences, krippendorff_alpha, reliability_units, spread


def test_hand_worked_nominal_and_interval_example():
    """Three items, two annotators each: (1, 1), (1, 3), (3, 3).

    Coincidences (each unit has m_u = 2, so every ordered pair counts 1 / (2 - 1) = 1):
        item 1 gives o[1,1] += 2; item 2 gives o[1,3] += 1 and o[3,1] += 1; item 3 gives o[3,3] += 2.
        o = [[2, 1], [1, 2]], marginals n_1 = 3, n_3 = 3, n = 6.
    Nominal (delta = 1 when values differ):
        D_o = (o[1,3] + o[3,1]) / n = 2 / 6 = 1/3
        D_e = (n_1 n_3 + n_3 n_1) / (n (n - 1)) = 18 / 30 = 3/5
        alpha = 1 - (1/3) / (3/5) = 1 - 5/9 = 4/9 ≈ 0.444
    Interval (delta = (c - k)^2 = 4 for the pair 1, 3):
        D_o = (1·4 + 1·4) / 6 = 4/3;  D_e = (3·3·4 + 3·3·4) / 30 = 12/5
        alpha = 1 - (4/3) / (12/5) = 1 - 5/9 = 4/9 as well (two values: every metric agrees).
    Adding a third value changes that: (1, 1), (1, 2), (3, 3) for interval:
        o = diag(2, 0, 2) plus o[1,2] = o[2,1] = 1; n_1 = 3, n_2 = 1, n_3 = 2; n = 6.
        D_o = (1·1 + 1·1) / 6 = 1/3
        D_e = 2 (n_1 n_2 · 1 + n_1 n_3 · 4 + n_2 n_3 · 1) / 30 = 2 (3 + 24 + 2) / 30 = 58/30
        alpha = 1 - (1/3) / (58/30) = 1 - 10/58 = 48/58 ≈ 0.8276
    """
    units = [[1, 1], [1, 3], [3, 3]]
    values, o = coincidences(units)
    assert values == [1, 3]
    assert o.tolist() == [[2, 1], [1, 2]]
    assert krippendorff_alpha(units, "nominal") == pytest.approx(4 / 9)
    assert krippendorff_alpha(units, "interval") == pytest.approx(4 / 9)
    assert krippendorff_alpha([[1, 1], [1, 2], [3, 3]], "interval") == pytest.approx(48 / 58)


# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C: 4 observers, 12 units,
# with missing values. Published: nominal 0.743, ordinal 0.815, interval 0.849.
CLASSIC = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


@pytest.mark.parametrize(
    ("metric", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_published_reference_values(metric, published):
    units = reliability_units(CLASSIC)
    assert krippendorff_alpha(units, metric) == pytest.approx(published, abs=5e-4)


def test_perfect_agreement_is_one_and_systematic_disagreement_is_negative():
    assert krippendorff_alpha([["A", "A"], ["B", "B"], ["tie", "tie", "tie"]], "nominal") == pytest.approx(
        1.0
    )
    assert krippendorff_alpha([[1, 5], [5, 1], [1, 5]], "interval") < 0


def test_undefined_cases_are_none():
    assert krippendorff_alpha([[3]], "ordinal") is None  # no pairable unit
    assert krippendorff_alpha([[4, 4], [4, 4]], "interval") is None  # no variation: D_e = 0
    assert krippendorff_alpha([], "nominal") is None


def test_single_rated_units_do_not_count():
    with_singletons = [[1, 1], [1, 3], [3, 3], [5], [2]]
    assert krippendorff_alpha(with_singletons, "nominal") == pytest.approx(4 / 9)
    summary = alpha_by_unit_set({"a": [1, 1], "b": [1, 3], "c": [3, 3], "d": [5]}, "nominal")
    assert summary == {"alpha": pytest.approx(4 / 9), "units": 3, "values": 6}


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="metric"):
        krippendorff_alpha([[1, 2]], "ratio")
    with pytest.raises(ValueError, match="one entry per unit"):
        reliability_units([[1, 2], [1]])


def test_spread():
    assert spread([1, 4, 2]) == 3
    assert spread([5]) == 0
