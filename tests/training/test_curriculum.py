"""Adaptive curriculum: difficulty rises above the upper bound, falls below the lower one, stays between."""

import pytest

from training.curriculum import AdaptiveCurriculum, CurriculumConfig
from training.events import EventStream


def play(cur, outcomes):
    return [cur.record(o) for o in outcomes]


def test_difficulty_rises_then_falls_and_respects_bounds():
    got = []
    cur = AdaptiveCurriculum(
        CurriculumConfig(upper=0.8, lower=0.4, max_level=2, window=5), events=EventStream([got.append])
    )
    assert play(cur, [True] * 5)[-1] == 1  # 100% > 80%
    assert play(cur, [True] * 5)[-1] == 2
    assert play(cur, [True] * 5) == [None] * 5  # already at max
    assert cur.level == 2
    assert play(cur, [True, False, True, False, True]) == [None] * 5  # 60%: stays
    assert play(cur, [False, False, True, False, False])[-1] == 1  # 20% < 40%
    assert cur.level == 1
    assert [m[:2] for m in cur.moves] == [(0, 1), (1, 2), (2, 1)]
    assert [e.payload["curriculum"]["to"] for e in got] == [1, 2, 1]


def test_window_restarts_after_a_move():
    cur = AdaptiveCurriculum(CurriculumConfig(window=4))
    play(cur, [True] * 4)
    assert cur.level == 1 and cur.success_rate is None
    # three failures are not yet a full window at the new level
    assert play(cur, [False] * 3) == [None] * 3 and cur.level == 1


def test_bad_bounds_are_rejected_and_state_round_trips():
    with pytest.raises(ValueError, match="lower < upper"):
        CurriculumConfig(upper=0.3, lower=0.5)
    cur = AdaptiveCurriculum(CurriculumConfig(window=4))
    play(cur, [True] * 4 + [True, False])
    other = AdaptiveCurriculum(CurriculumConfig(window=4))
    other.load_state_dict(cur.state_dict())
    assert other.level == 1 and other.success_rate == 0.5
