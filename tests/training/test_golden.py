"""Golden-range metrics: levels against the golden ranges, clock scaling, alert events, diversity."""

import pytest

from training.events import EventStream
from training.golden import GOLDEN_RANGES, GoldenMetrics, diversity_index


def test_levels_follow_the_seed_table():
    lat = GOLDEN_RANGES["inter_agent_latency_ms"]
    assert [lat.level(v) for v in (150, 300, 600)] == ["ok", "warn", "alert"]
    div = GOLDEN_RANGES["agent_diversity_index"]
    assert [div.level(v) for v in (0.7, 0.5, 0.3, 0.9)] == ["ok", "warn", "alert", "warn"]
    buf = GOLDEN_RANGES["replay_buffer_size"]
    assert [buf.level(v) for v in (200_000, 70_000, 10_000)] == ["ok", "warn", "alert"]


def test_durations_are_scaled_to_the_runs_clock():
    gm = GoldenMetrics(clock_scale=3600.0)  # one run second = one golden-range hour
    assert gm.observe("policy_update_interval_h", 3.0)["level"] == "ok"
    assert gm.observe("policy_update_interval_h", 0.2)["level"] == "alert"  # 0.2 h < 30 min
    assert gm.observe("phase_duration_h", 8.0)["level"] == "warn"
    slow = GoldenMetrics(clock_scale=60.0)  # one run second = one seed minute
    reading = slow.observe("policy_update_interval_h", 180.0)
    assert reading["value"] == pytest.approx(3.0) and reading["level"] == "ok"


def test_alert_events_on_level_changes_only_and_metrics_report():
    got = []
    gm = GoldenMetrics(EventStream([got.append]))
    gm.observe("inter_agent_latency_ms", 100)
    gm.observe("inter_agent_latency_ms", 700)
    gm.observe("inter_agent_latency_ms", 800)
    gm.observe("inter_agent_latency_ms", 120)
    alerts = [e.payload for e in got if e.type == "alert"]
    assert [(a["previous"], a["level"]) for a in alerts] == [("ok", "alert"), ("alert", "ok")]
    assert alerts[0]["name"] == "inter_agent_latency_ms" and alerts[0]["golden"] == [0.0, 200.0]
    payload = gm.report(step=3, episode=10)
    assert payload["golden.inter_agent_latency_ms"] == 120 and got[-1].type == "metrics"
    with pytest.raises(ValueError, match="unknown golden metric"):
        gm.observe("latency", 1)


def test_diversity_index():
    assert diversity_index([[1, 0], [1, 0]]) == pytest.approx(0.0)
    assert diversity_index([[1, 0], [0, 1]]) == pytest.approx(1.0)
    assert diversity_index([[1, 0], [1, 1], [0, 1]]) == pytest.approx((2 * (1 - 2**-0.5) + 1) / 3)
