"""A batch whose tickets carry intents is scored: exact match and per-intent precision and recall."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.models import BatchJob, Deployment, Episode
from mase_web.deployments.tests.conftest import client_for, make_trained_run

pytestmark = pytest.mark.django_db
SPEC = {"agents": [{"id": "logistics"}], "environment": {"name": "customer_service"}}


def test_batch_with_intents_reports_exact_match_and_per_intent_figures(team):
    project, users = team
    run = make_trained_run(project, None, SPEC)
    deployment = Deployment.objects.create(project=project, name="cs", run=run, checkpoint="/none", spec=SPEC)
    tickets = [
        {"id": "t-1", "text": "where is my parcel", "intents": ["order_tracking"]},
        {"id": "t-2", "text": "broken lamp, refund please", "intents": ["return_refund", "damaged_item"]},
        {"id": "t-3", "text": "hello"},  # no intents: not scored
    ]
    batch = BatchJob.objects.create(
        deployment=deployment, tickets=tickets, total=3, done=3, state="succeeded"
    )
    answers = {"t-1": ["order_tracking"], "t-2": ["return_refund"], "t-3": ["recommendation"]}
    for task_id, predicted in answers.items():
        Episode.objects.create(
            deployment=deployment, request_id=f"batch-{task_id}", task_id=task_id, task_text="…", batch=batch,
            source="batch", status="completed", result={"info": {"predicted_intents": predicted}},
        )  # fmt: skip

    listed = client_for(users[Role.OPERATOR]).get(f"/api/deployments/{deployment.pk}/batches/").json()
    score = listed[0]["score"]
    assert (score["labelled"], score["scored"], score["exact"], score["exact_match"]) == (2, 2, 1, 0.5)
    rows = {r["intent"]: r for r in score["intents"]}
    assert rows["order_tracking"] == {
        "intent": "order_tracking", "support": 1, "predicted": 1, "correct": 1,
        "precision": 1.0, "recall": 1.0, "f1": 1.0,
    }  # fmt: skip
    assert (rows["damaged_item"]["recall"], rows["damaged_item"]["precision"]) == (0.0, None)
    assert "recommendation" not in rows  # t-3 carries no intents


def test_a_batch_without_intents_has_no_score(team):
    project, users = team
    run = make_trained_run(project, None, SPEC)
    deployment = Deployment.objects.create(project=project, name="cs", run=run, checkpoint="/none", spec=SPEC)
    BatchJob.objects.create(deployment=deployment, tickets=[{"id": "a", "text": "hi"}], total=1)
    listed = client_for(users[Role.OPERATOR]).get(f"/api/deployments/{deployment.pk}/batches/").json()
    assert listed[0]["score"] is None
