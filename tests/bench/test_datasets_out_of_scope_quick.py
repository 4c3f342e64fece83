"""bench/datasets.py --quick --parts out_of_scope: the shipped customer-service template, trained on a tiny
budget, behind the scope gate its deployment would use (floor on the dev split, contrast with the generated
out-of-scope tickets): the keys exist, and the gate turns away most out-of-scope test tickets, far more than
the distance-only gate, while it keeps nearly all of the test split (the gate does not depend on the
training budget: its score reads the frozen backbone)."""

import pytest

SCOPE_KEYS = ("answered_share", "auroc", "in_scope_exact_match_before", "in_scope_exact_match_after")


@pytest.mark.nightly  # ~2-4 min; the scope gate is opt-in, so this guard is not on CI's product path
@pytest.mark.timeout(1500)  # the template's warm start and calibration, and two gates, on a shared machine
def test_quick_out_of_scope_part_reports_the_contrast_gate_beside_the_distance_only_one(run_quick_bench):
    result = run_quick_bench("datasets", "--parts", "out_of_scope", timeout=1400)
    scope = result["datasets"]["out_of_scope"]
    for key in SCOPE_KEYS:
        assert isinstance(scope[key], float), key
    assert scope["gate"]["score"] == "contrast_5" and scope["gate"]["outside"] == 600
    assert scope["gate"]["floor_from"] == "dev" and scope["tickets"] == {"in_scope": 100, "out_of_scope": 30}
    assert scope["gate"]["floor_tickets"] == 600 and scope["gate"]["anchors"] == 8 + 2400 + 600  # dev: anchors too
    # full run, 2026-12-05 (decision 0031): 3.3 % answered (distance only: 15.0 %), 0.5 % of the test split turned away
    assert scope["answered_share"] <= 0.15 < scope["distance_only"]["answered_share"], scope
    assert scope["in_scope_turned_away"] <= 0.05 and scope["auroc"] >= 0.95, scope
    assert scope["in_scope_exact_match_after"] <= scope["in_scope_exact_match_before"]
    assert 0.0 <= scope["out_of_scope_voices"] <= 0.25
    for extra in ("handwritten", "handwritten_voices"):
        assert set(scope[extra]) == {"in_scope_exact_match_before", "in_scope_exact_match_after",
                                     "in_scope_turned_away"}  # fmt: skip
