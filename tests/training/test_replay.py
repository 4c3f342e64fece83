"""Dual experience replay: recent FIFO buffer, elite prioritised buffer, size health."""

import random
from collections import Counter

from training.replay import DualReplay, EliteBuffer, RecentBuffer, ReplayConfig


def test_recent_buffer_keeps_the_last_items():
    buf = RecentBuffer(3)
    for i in range(5):
        buf.add(i)
    assert list(buf) == [2, 3, 4]
    assert set(buf.sample(50, random.Random(0))) == {2, 3, 4}


def test_elite_buffer_keeps_the_best_and_samples_by_priority():
    buf = EliteBuffer(3, alpha=1.0, eps=1e-3)
    for item, prio in [("a", 0.1), ("b", 0.9), ("c", 0.5), ("d", 0.2), ("e", 0.05)]:
        buf.add(item, prio)
    assert sorted(buf) == ["b", "c", "d"]
    assert buf.min_priority == 0.2
    counts = Counter(buf.sample(4000, random.Random(1)))
    # weights ∝ priority − min + eps: b ≫ c ≫ d
    assert counts["b"] > counts["c"] > counts["d"]
    assert counts["b"] / counts["c"] > 2.0


def test_dual_replay_mixes_shares_and_reports_health():
    replay = DualReplay(
        ReplayConfig(
            recent_capacity=10, elite_capacity=2, elite_share=0.25, golden_low=5, golden_high=8, alert_below=3
        ),
        seed=0,
    )
    assert replay.health()["level"] == "alert"
    for i in range(6):
        replay.add(("ep", i), priority=float(i))
    assert replay.health()["level"] == "ok"
    for i in range(6, 10):
        replay.add(("ep", i), priority=0.0)
    assert replay.health() == {
        "size": 10,
        "elite_size": 2,
        "level": "warn",
        "golden": [5, 8],
        "alert_below": 3,
    }
    batch = replay.sample(8)
    assert len(batch) == 8
    # the first two come from the elite buffer: the two best episodes of all time
    assert set(batch[:2]) <= {("ep", 4), ("ep", 5)}
