"""bench/customer_service_probe.py --quick runs end to end and writes every documented key."""

from __future__ import annotations

import pytest


@pytest.mark.slow
def test_quick_probe_writes_every_key(run_quick_bench):
    result = run_quick_bench("customer_service_probe", "--threads", "1")
    assert result["quick"] is True and result["config"]["seeds"] == 1 and result["seconds"] > 0
    assert 0.5 <= result["rules_train"]["exact_match"] <= 1
    for split in ("validation", "test", "holdout_styles"):
        row = result["splits"][split]
        assert row["n"] == 40
        for arm in ("rules", "pooled_mlp", "clause_max"):
            assert 0 <= row[arm]["exact_match"] <= 1 and 0 <= row[arm]["intent_f1"] <= 1
