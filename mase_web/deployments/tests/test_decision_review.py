"""An operator's review of decisions: ok / wrong with a reason / escalated, filtered and exported, and a
decision marked wrong queued for annotation in one call."""

from __future__ import annotations

import json

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.models import DecisionStep, Deployment, Episode
from mase_web.deployments.tests.conftest import client_for, make_trained_run
from mase_web.feedback.models import FeedbackItem, FeedbackQueue

pytestmark = pytest.mark.django_db

SPEC = {
    "agents": [{"id": "logistics"}, {"id": "quality_supervisor"}],
    "environment": {"name": "customer_service"},
}


@pytest.fixture
def logged(team):
    """One finished episode of a deployment with two decisions (no team needed: rows as the runtime writes)."""
    project, users = team
    run = make_trained_run(project, None, SPEC)
    deployment = Deployment.objects.create(project=project, name="cs", run=run, checkpoint="/none", spec=SPEC)
    episode = Episode.objects.create(
        deployment=deployment, request_id="api-1", task_text="where is my parcel", status="completed",
        result={"info": {"predicted_intents": ["order_tracking"]}},
    )  # fmt: skip
    steps = [
        DecisionStep.objects.create(
            episode=episode,
            step=1,
            agent=agent,
            observation="{}",
            action=action,
            source="model",
            confidence=0.4,
        )
        for agent, action in (("logistics", "track_parcel"), ("quality_supervisor", "approve"))
    ]
    return users, steps


def review(user, step, **body):
    return client_for(user).post(f"/api/decisions/{step.pk}/review/", body, format="json")


def test_an_operator_marks_decisions_and_filters_and_exports_by_review(logged):
    users, (track, approve) = logged
    op = users[Role.OPERATOR]
    assert review(op, track, status="wrong").json()["errors"] == {"reason": ["say why the decision is wrong"]}
    marked = review(op, track, status="wrong", reason="the parcel was already delivered")
    assert marked.status_code == 200, marked.content
    body = marked.json()
    assert (body["review_status"], body["review_reason"], body["reviewed_by"]) == (
        "wrong", "the parcel was already delivered", op.username,
    )  # fmt: skip
    assert review(op, approve, status="escalated", reason="ask the shop").status_code == 200

    listed = client_for(op).get("/api/decisions/", {"review_status": "wrong"}).json()["results"]
    assert [d["id"] for d in listed] == [track.pk]
    assert client_for(op).get("/api/decisions/", {"review_status": "unreviewed"}).json()["count"] == 0
    assert client_for(op).get("/api/decisions/", {"review_status": "bad"}).status_code == 400

    lines = b"".join(
        client_for(op).get("/api/decisions/export/", {"review_status": "escalated"}).streaming_content
    )
    records = [json.loads(line) for line in lines.decode().splitlines()]
    assert [r["review"]["status"] for r in records] == ["escalated"]
    assert records[0]["review"]["reason"] == "ask the shop" and records[0]["review"]["by"] == op.username

    cleared = review(op, approve, status="unreviewed").json()
    assert (cleared["review_status"], cleared["review_reason"], cleared["reviewed_by"]) == (
        "unreviewed",
        "",
        None,
    )


def test_only_reviewers_may_review(logged):
    users, (track, _) = logged
    for who in (Role.PRODUCT_MANAGER, Role.ANNOTATOR, "stranger"):
        assert review(users[who], track, status="ok").status_code == 404
    assert review(users[Role.ADMIN], track, status="ok").status_code == 200


def test_a_wrong_decision_is_queued_for_annotation_once(logged):
    users, (track, approve) = logged
    op = users[Role.OPERATOR]
    url = f"/api/decisions/{track.pk}/annotate/"
    refused = client_for(op).post(url, {}, format="json")
    assert refused.status_code == 400 and "review_status" in refused.json()["errors"]
    review(op, track, status="wrong", reason="the parcel was already delivered")
    placed = client_for(op).post(url, {}, format="json")
    assert placed.status_code == 201, placed.content
    queue = FeedbackQueue.objects.get(pk=placed.json()["queue"])
    assert queue.name == "Decisions marked wrong" and queue.kind == "rating"
    item = FeedbackItem.objects.get(pk=placed.json()["item"])
    assert item.kind == "step" and item.step_id == track.pk
    assert item.snapshot["meta"]["review"]["reason"] == "the parcel was already delivered"
    again = client_for(op).post(url, {}, format="json")
    assert again.status_code == 200 and again.json()["added"] is False and again.json()["item"] == item.pk
    elsewhere = client_for(op).post(url, {"queue": 999999}, format="json")
    assert elsewhere.status_code == 400 and "queue" in elsewhere.json()["errors"]
