"""bench/template_workflows_writing.py --quick: both templates train through training.api.train with their
shipped defaults (a shortened budget: `QUICK_EPISODES`) and the trained team clearly beats random teams on
the test items — a template that no longer learns fails here. The full run (5 seeds, whole budget) is the
measurement of trained against scripted; this is its smoke test."""

import pytest

KEYS = ("score", "scripted_score", "random_score", "test_items", "seconds", "runs")
MARGIN = 0.05
"""How far above the random teams' mean score the quick run must end."""


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_quick_run_trains_both_templates_and_learns(run_quick_bench):
    result = run_quick_bench("template_workflows_writing", timeout=1100)
    for name, items in (("collaborative_writing", 10), ("code_generation", 8)):
        figures = result[name]
        assert set(KEYS) <= set(figures), figures
        assert figures["test_items"] == items and figures["seeds"] == 1
        assert figures["runs"][0]["status"] == "succeeded"
        assert 0 < figures["scripted_score"] <= 1 and 0 <= figures["score"] <= 1
        assert figures["score"] >= figures["random_score"] + MARGIN, (name, figures)
