"""bench/catalogue_rules.py --quick writes every documented key, and the rules built from the catalogue
alone route the customer-service tickets far better than chance (a regression in `catalogue_patterns` or the
tuning shows here)."""

from __future__ import annotations


def test_quick_catalogue_rules_writes_every_key(run_quick_bench):
    result = run_quick_bench("catalogue_rules")["catalogue_rules"]
    assert result["quick"] is True and result["tickets"]["train"] == 600
    for label in ("hand", "generic"):
        assert set(result[label]) == {"test", "holdout", "handwritten", "tune_seconds"}
        assert all(0 <= result[label][key] <= 1 for key in ("test", "holdout", "handwritten"))
    assert result["generic"]["test"] >= 0.4  # from descriptions and 600 labelled tickets only
    assert result["hand"]["test"] >= result["generic"]["test"]
