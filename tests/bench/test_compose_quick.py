"""bench/compose.py --quick runs end to end and writes every documented key."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_quick_compose_writes_every_key(run_quick_bench):
    result = run_quick_bench("compose", "--threads", "1")
    compose = result["compose"]
    assert result["quick"] is True and result["tickets"] == {"train": 300, "test": 100}
    assert set(compose["teams"]) == {"3", "4", "5"}
    for n, team in compose["teams"].items():
        assert len(team["specialists"]) == int(n)
        for key in ("exact_match", "rules_exact_match", "zero_shot_routing", "chance"):
            assert 0 <= team[key] <= 1
        assert team["chance"] == pytest.approx(1 / int(n))
        assert 0 <= team["prompt_swap"]["share"] <= 1
    for key in ("zero_shot_routing", "chance", "prompt_swap_share"):
        assert 0 <= compose[key] <= 1
    assert compose["zero_shot_routing"] > compose["chance"]  # a prompt that names the job routes above chance
