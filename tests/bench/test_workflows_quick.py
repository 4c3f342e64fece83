"""bench/workflows.py --quick: every documented key is present and the figures are well-formed."""

import pytest

ARMS = ("rules", "ippo", "mappo", "mappo_counterfactual", "mappo_teacher")
CS_KEYS = ("exact_match", "intent_f1", "steps_per_ticket", "messages_per_ticket", "train_seconds")
RR_KEYS = ("accuracy", "depth", "structure", "readability")


@pytest.mark.slow
def test_quick_run_writes_every_key(run_quick_bench):
    result = run_quick_bench("workflows", "--threads", "1")
    for arm in ARMS:
        for key in CS_KEYS:
            value = result["customer_service"][arm][key]
            assert isinstance(value, (int, float)) and value >= 0, (arm, key, value)
        assert 0 <= result["customer_service"][arm]["exact_match"] <= 1
        assert set(CS_KEYS[:4]) <= set(result["customer_service_holdout"][arm])
    for arm in ARMS[1:]:
        assert result["customer_service"][arm]["train_seconds"] > 0
        curve = result["customer_service_training"][arm]
        assert curve["messages_first"] >= 0 and 0 <= curve["useful_share"] <= 1
    # the rule team is deterministic and competent even on the quick subset
    assert result["customer_service"]["rules"]["exact_match"] > 0.3
    assert result["teacher_student"]["useful_share_with"] >= 0
    for when in ("before", "after"):
        for key in RR_KEYS:
            assert 0 <= result["research_report"][when][key] <= 1
