"""Priority channels: ordering, latency budgets under a flood, quotas and reputation."""

import pytest

from agents.protocol.channels import ChannelConfig, FifoLink, FloodScenario, PriorityScheduler, run_flood


def test_shared_lane_serves_urgent_then_regular_then_background():
    cfg = ChannelConfig(
        link_bytes_per_ms=10.0, urgent_share=0.5, background_min_share=0.0, enforce_quotas=False
    )
    sched = PriorityScheduler(cfg)
    sched.advance(0.0)
    # Fill the urgent lane first so the next urgent message has to use the shared lane.
    order = [("background", 1), ("regular", 2), ("urgent", 3), ("urgent", 4), ("regular", 5)]
    for ch, sender in order:
        sched.submit(sender, ch, 50, 0.0)
    sched.advance(0.0)
    sched.advance(1000.0)
    shared = [
        m.sender
        for m in sorted(sched.delivered, key=lambda m: m.started_ms)
        if m.channel != "urgent" or m.sender == 4
    ]
    # urgent 3 took the dedicated lane; the shared lane then took urgent 4, regulars 2 and 5, then background 1.
    assert shared[0] == 4 and shared[1:3] == [2, 5] and shared[-1] == 1
    assert next(m for m in sched.delivered if m.sender == 3).latency_ms == pytest.approx(
        10.0
    )  # 50 B at 5 B/ms


def test_background_gets_its_minimum_share():
    cfg = ChannelConfig(link_bytes_per_ms=10.0, background_min_share=0.25, enforce_quotas=False)
    sched = PriorityScheduler(cfg)
    for t in range(2000):
        sched.advance(float(t))
        if t % 5 == 0:
            sched.submit(1, "regular", 50, float(t))  # regular alone would fill the shared lane
            sched.submit(2, "background", 50, float(t))
    bg = sum(m.size for m in sched.delivered if m.channel == "background")
    reg = sum(m.size for m in sched.delivered if m.channel == "regular")
    assert bg / (bg + reg) >= 0.2


def test_urgent_budget_holds_under_flood_and_fifo_misses_it():
    scenario = FloodScenario(duration_ms=3000, seed=1)
    full = run_flood(PriorityScheduler(), scenario)
    assert full["offered_load"] > 1.5  # the link really is saturated
    assert full["urgent_p95_ms"] <= 50.0
    assert full["stats"]["regular"]["p95_ms"] <= 200.0
    fifo = run_flood(FifoLink(), scenario)
    assert fifo["urgent_p95_ms"] > 10 * full["urgent_p95_ms"]
    no_guard = run_flood(
        PriorityScheduler(ChannelConfig(enforce_quotas=False, use_reputation=False)), scenario
    )
    assert no_guard["urgent_p95_ms"] > 50.0  # urgent abusers break the budget without quotas/reputation


def test_quota_demotes_and_reputation_falls_for_a_flooding_agent():
    cfg = ChannelConfig(quota_per_s={"urgent": 5.0, "regular": 5.0, "background": 5.0}, quota_burst_s=1.0)
    sched = PriorityScheduler(cfg)
    channels = [sched.submit(7, "urgent", 10, 0.0) for _ in range(20)]
    admitted = [m.channel if m else None for m in channels]
    assert admitted[:5] == ["urgent"] * 5  # the burst allowance
    assert "regular" in admitted and "background" in admitted and None in admitted
    assert sched.reputation.score(7, 0.0) < cfg.demote_below
    assert sched.reputation.score(8, 0.0) == 1.0
    # Low reputation demotes even traffic within quota, later on.
    later = sched.submit(7, "urgent", 10, 2000.0)
    assert later.channel != "urgent"
    assert sched.stats()["agents_below_demote"] == 1
