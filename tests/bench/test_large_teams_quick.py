"""bench/large_teams.py --quick: a 10-agent team trained for a few episodes through the product path, every arm
played on the same streams, gossip against the controller, a specialist's failure; the documented keys."""

from __future__ import annotations

import pytest


@pytest.mark.timeout(300)
def test_large_teams_quick_writes_documented_keys(run_quick_bench):
    doc = run_quick_bench("large_teams", timeout=280)
    assert doc["quick"] is True
    figures = doc["large_teams"]["10"]
    assert figures["train_status"] == "succeeded" and figures["train_seconds"] > 0
    for arm in ("learned", "fixed_auction", "central", "round_robin"):
        assert {"in_time", "mean_wait", "p95_wait", "dropped"} <= set(figures[arm])
        assert (
            0 <= figures[arm]["in_time"] <= 1 and figures[arm]["p95_wait"] >= figures[arm]["mean_wait"] >= 0
        )
    assert figures["central"]["in_time"] > figures["round_robin"]["in_time"]  # the router uses the load
    # a learning regression: eight episodes from the rules teacher already bid like it (0.80 vs central 0.77)
    learned, central = figures["learned"]["in_time"], figures["central"]["in_time"]
    assert learned >= 0.9 * central and learned > figures["round_robin"]["in_time"] + 0.2
    assert (
        0 < figures["messages_ratio"] < 1
    )  # gossip is cheaper than the controller, counted in the running env
    assert figures["gossip"]["rounds_p95"] <= figures["gossip"]["rounds_bound"]
    for arm in ("learned", "fixed_auction", "central"):
        failed = figures["failure"][arm]
        assert 0 <= failed["in_time_after"] <= 1 and failed["in_time_same_window_no_fault"] > 0
        assert failed["respread"] and abs(sum(failed["respread"].values()) - 1) < 0.01
        assert set(figures["failure_group"][arm]) >= {"in_time_after", "kept", "respread", "load_spread"}
    storm = figures["storm"]
    assert storm["false_storms"] == 0  # a quiet team never passes the quota
    for arm in ("learned", "fixed_auction", "central"):
        assert storm[arm]["storms"] >= 1 and storm[arm]["throttled"] > 0
        assert storm[arm]["in_time_defended"] > storm[arm]["in_time_undefended"]  # the flood costs work
