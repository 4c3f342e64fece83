"""bench/scaling.py --quick: 1 and 2 gloo processes train number guessing; the documented keys. (MAPPO's
data-parallel path, which customer service takes, is tested in tests/training/test_distributed_mappo.py:
running it here too doubled this test's minutes.)"""

from __future__ import annotations

import pytest


@pytest.mark.slow  # two launches of MiniLM-backed ranks: ~1.5 min on the shared 2-core machine
@pytest.mark.timeout(900)
def test_scaling_quick_writes_documented_keys(run_quick_bench):
    doc = run_quick_bench("scaling", "--templates", "number_guessing", timeout=840)
    assert doc["quick"] is True and doc["machine"]["backend"] == "gloo"
    figures = doc["scaling"]["number_guessing"]
    assert {"eps_1", "eps_2", "speedup_2", "seconds_to_target_1", "seconds_to_target_2"} <= set(figures)
    assert figures["eps_1"] > 0 and figures["eps_2"] > 0
    assert figures["speedup_2"] == pytest.approx(figures["eps_2"] / figures["eps_1"], rel=1e-2)
    one, two = figures["runs"]["p1"]["0"], figures["runs"]["p2"]["0"]
    assert one["episodes"] == two["episodes"] == 1280 and two["updates"] == one["updates"] // 2
    assert len(two["rank_eps"]) == 2 and all(rate > 0 for rate in two["rank_eps"])  # per-rank throughput
    assert figures["gradient_bytes"] > 0 and figures["allreduce_ms_gloo_2"] > 0
    assert 0 < figures["allreduce_ms_shared_2"]  # the ranks of one machine sum through shared memory
    assert "customer_service" not in doc["scaling"]  # only the templates asked for
