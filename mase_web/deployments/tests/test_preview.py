"""The deploy form's fallback preview: who may ask, what it says as the threshold moves, and deploying with
the chosen threshold."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.models import Deployment
from mase_web.deployments.tests.conftest import client_for, make_trained_run, team_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def spec(tiny_backbone_dir):
    return team_spec(tiny_backbone_dir, threshold=0.6)


def preview(user, run_id, **params):
    query = "&".join(f"{k}={v}" for k, v in {"run": run_id, **params}.items())
    return client_for(user).get(f"/api/deployments/preview/?{query}")


def test_the_preview_replays_the_dev_split_at_the_chosen_threshold(team, trained_checkpoint, spec):
    project, users = team
    run = make_trained_run(project, trained_checkpoint, spec)
    shown = preview(users[Role.OPERATOR], run.pk)  # an operator: sees runs, may not deploy
    assert shown.status_code == 200, shown.content
    body = shown.json()
    assert body["run"] == run.pk and body["checkpoint"] == trained_checkpoint.name
    assert body["confidence_threshold"] == body["spec_threshold"] == 0.6
    assert body["split"] == "validation" and body["tickets"] == 600 and body["decisions"] > 0
    assert 0.0 <= body["fallback_ticket_share"] <= 1.0 and body["calibration_error"] is not None
    shares = [
        preview(users[Role.OPERATOR], run.pk, threshold=t).json()["fallback_ticket_share"]
        for t in (0, 0.5, 1)
    ]
    assert shares == sorted(shares) and shares[0] == 0.0


def test_the_preview_is_access_checked_like_the_run_and_validates_its_query(team, trained_checkpoint, spec):
    project, users = team
    run = make_trained_run(project, trained_checkpoint, spec)
    # a run you may not see answers exactly like a missing one (a bad query field), leaking nothing
    missing = preview(users[Role.OPERATOR], run.pk + 1000)
    assert missing.status_code == 400
    for outsider in (users["stranger"], users[Role.ANNOTATOR]):  # annotators do not see runs
        refused = preview(outsider, run.pk)
        assert refused.status_code == 400
        assert refused.json()["errors"]["run"] == [f"no run {run.pk} among those you may see"]
    assert preview(None, run.pk).status_code in (401, 403)
    assert preview(users[Role.OPERATOR], run.pk, threshold=1.5).status_code == 400
    assert client_for(users[Role.OPERATOR]).get("/api/deployments/preview/").status_code == 400
    empty = make_trained_run(project, None, spec)
    assert "no checkpoint" in str(preview(users[Role.OPERATOR], empty.pk).json())


def test_deploying_with_a_chosen_threshold_stores_it_in_the_deployments_breaker(
    team, trained_checkpoint, spec
):
    project, users = team
    run = make_trained_run(project, trained_checkpoint, spec)
    created = client_for(users[Role.PRODUCT_MANAGER]).post(
        "/api/deployments/", {"run": run.pk, "confidence_threshold": 0.45}, format="json"
    )
    assert created.status_code == 201, created.content
    deployment = Deployment.objects.get(pk=created.json()["id"])
    assert deployment.spec["circuit_breaker"]["confidence_threshold"] == 0.45
    assert run.spec["circuit_breaker"]["confidence_threshold"] == 0.6  # the run's spec is untouched
    assert created.json()["breaker"]["config"]["confidence_threshold"] == 0.45
