"""bench/scope_confidence.py --quick: a one-off study's smoke run (it trains the template, so nightly): every
documented key is written, the dev rule picks a threshold from its list, and the gate alone is a threshold too."""

import pytest

from bench.scope_confidence import TEST_IN, TEST_OUT, THRESHOLDS


@pytest.mark.nightly
@pytest.mark.timeout(900)
def test_quick_scope_confidence_writes_every_key(run_quick_bench):
    result = run_quick_bench("scope_confidence", timeout=850)
    assert result["quick"] is True and result["train_seconds"] > 0
    for signal in ("least", "plain"):
        chosen = result[signal]["chosen_threshold"]
        assert chosen in THRESHOLDS and set(result[signal]["dev_curve"]) == {str(t) for t in THRESHOLDS}
        for name in TEST_IN:
            for arm in ("gate_alone", "with_confidence"):
                figures = result[signal]["measured"][name][arm]
                assert 0 <= figures["after"] <= figures["before"] <= 1 and 0 <= figures["away"] <= 1
        for name in TEST_OUT:
            assert 0 <= result[signal]["measured"][name]["gate_alone"]["answered"] <= 1
