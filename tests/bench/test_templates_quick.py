"""bench/templates.py --quick: the shipped templates, defaults untouched, trained through training.api.train;
fails when a template's defaults stop learning (one seed, the full recipes, fewer evaluation tickets)."""

import pytest

NG_KEYS = (
    "success",
    "distractor_attention",
    "messages_per_episode",
    "train_seconds",
    "seeds",
    "seeds_meeting_target",
)
CS_KEYS = (
    "exact_match",
    "rules_exact_match",
    "holdout_exact_match",
    "rules_holdout_exact_match",
    "model_decision_share",
    "calibration_error",
    "train_seconds",
)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # two templates trained with their full recipes on a shared machine
def test_quick_run_trains_the_shipped_templates_and_they_learn(run_quick_bench):
    result = run_quick_bench("templates", timeout=1500)
    assert result["settings"] == {}  # the templates exactly as shipped
    ng, cs = result["templates"]["number_guessing"], result["templates"]["customer_service"]
    for key in NG_KEYS:
        assert isinstance(ng[key], (int, float)), key
    for key in CS_KEYS:
        assert isinstance(cs[key], (int, float)), key
    # number guessing (targets: success >= 0.99, distractor attention <= 0.02, <= 4 messages, <= 60 s on a
    # quiet machine); the wall time is not asserted: the test machine is shared
    assert ng["seeds"] == 1
    assert ng["success"] >= 0.95 and ng["distractor_attention"] <= 0.05 and ng["messages_per_episode"] <= 4
    # customer service: learning beats the tuned rules by the 10 points on the test tickets and on
    # the held-out styles (quick: 200 test / 100 holdout tickets, one seed: a guard against regressions; the
    # targets are checked on the full run, bench/README.md). Seed 0 on this subset: 0.955 vs rules 0.72 on
    # test, 0.84 vs 0.65 on holdout (2026-12-04, fixed readers, dealt roles); with readers trained by PPO
    # 0.895 and 0.60; the prompt as a 384-wide input gave 0.715 and 0.48.
    assert cs["exact_match"] >= cs["rules_exact_match"] + 0.15, cs
    assert cs["holdout_exact_match"] >= cs["rules_holdout_exact_match"] + 0.1, cs
    # deployed with the template's breaker, the model answers, calibrated, and faults still open the breaker
    assert cs["model_decision_share"] >= 0.95 and cs["calibration_error"] <= 0.05, cs
    assert cs["breaker_trips_on_faults"] is True
    assert cs["train_seconds"] <= 600  # the whole recipe (target <= 300 s on a quiet machine)
