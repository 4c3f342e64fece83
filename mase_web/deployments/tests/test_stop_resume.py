"""Stopping and resuming a deployment: who may, what a stopped one refuses, and the runtime it frees."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments import runtimes
from mase_web.deployments.models import BatchJob, Deployment, Episode
from mase_web.deployments.tests.conftest import client_for, fresh_text, make_deployment, team_spec

pytestmark = pytest.mark.django_db

ONE_TICKET = '{"id": "t-1", "text": "where is my parcel?"}'


@pytest.fixture
def deployment(team, trained_checkpoint, tiny_backbone_dir):
    project, _ = team
    return make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))


def post(user, deployment_id: int, what: str, body: dict | None = None):
    return client_for(user).post(f"/api/deployments/{deployment_id}/{what}/", body or {}, format="json")


@pytest.mark.parametrize(
    ("who", "status"),
    [
        (Role.PRODUCT_MANAGER, 200),
        (Role.ADMIN, 200),
        (Role.OPERATOR, 403),
        (Role.ANNOTATOR, 404),  # annotators do not see deployments at all
        ("stranger", 404),
        (None, 403),
    ],
)
def test_who_may_stop_and_resume(team, deployment, who, status):
    _, users = team
    assert post(users.get(who), deployment.pk, "stop").status_code == status
    deployment.refresh_from_db()
    assert deployment.status == ("stopped" if status == 200 else "active")
    assert post(users.get(who), deployment.pk, "resume").status_code == status
    deployment.refresh_from_db()
    assert deployment.status == "active"


def test_a_stopped_deployment_refuses_tickets_and_batches_until_resumed(team, deployment):
    _, users = team
    pm, operator = users[Role.PRODUCT_MANAGER], users[Role.OPERATOR]
    assert post(operator, deployment.pk, "tickets", {"text": fresh_text()}).status_code == 201
    assert runtimes.cached_runtime(deployment.pk) is not None

    stopped = post(pm, deployment.pk, "stop")
    assert stopped.status_code == 200 and stopped.json()["status"] == "stopped"
    assert runtimes.cached_runtime(deployment.pk) is None  # this process freed the team
    listed = client_for(operator).get("/api/deployments/").json()["results"]
    assert [(d["id"], d["status"]) for d in listed] == [(deployment.pk, "stopped")]

    ticket = post(operator, deployment.pk, "tickets", {"text": fresh_text()})
    batch = post(operator, deployment.pk, "batches", {"jsonl": ONE_TICKET})
    for refused in (ticket, batch):
        assert refused.status_code == 400
        assert "is stopped" in refused.json()["errors"]["status"][0]
    assert Episode.objects.count() == 1 and BatchJob.objects.count() == 0
    assert runtimes.cached_runtime(deployment.pk) is None

    assert post(pm, deployment.pk, "resume").json()["status"] == "active"
    assert post(operator, deployment.pk, "tickets", {"text": fresh_text()}).status_code == 201
    assert Episode.objects.count() == 2 and runtimes.cached_runtime(deployment.pk) is not None


def test_a_batch_ends_when_its_deployment_is_stopped(team, deployment):
    from mase_web.deployments.tasks import run_batch

    _, users = team
    queued = post(users[Role.OPERATOR], deployment.pk, "batches", {"jsonl": ONE_TICKET})
    assert queued.status_code == 202
    Deployment.objects.filter(pk=deployment.pk).update(status=Deployment.Status.STOPPED)
    assert run_batch(queued.json()["id"]) == "failed"
    batch = BatchJob.objects.get(pk=queued.json()["id"])
    assert "is stopped" in batch.error and batch.done == 0 and Episode.objects.count() == 0
