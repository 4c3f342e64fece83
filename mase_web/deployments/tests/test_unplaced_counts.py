"""What the proposed intents count as tickets the team could not place: the ones turned away as out of scope
(the scope gate handed them to a person) and the answered ones an operator marked "none of these", counted
apart; a handed-over ticket an operator since placed in an intent, or an escalated one, is neither."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.models import Episode
from mase_web.deployments.proposals import unplaced, unplaced_texts
from mase_web.deployments.tests.conftest import client_for
from mase_web.deployments.tests.test_corrections import logged_episode, post

pytestmark = pytest.mark.django_db

GATE = {"in_scope": False, "score": 0.3, "floor": 0.46, "nearest": "order_tracking", "handoff": True}


def test_the_two_kinds_of_unplaced_ticket_are_counted_apart(team):
    project, users = team
    op = users[Role.OPERATOR]
    answered, step = logged_episode(project, text="I was charged twice")
    escalated, escalated_step = logged_episode(project, text="I want to speak to a manager")
    deployment = answered.deployment
    escalated.deployment, escalated.deployment_id = deployment, deployment.pk
    escalated.save(update_fields=["deployment"])

    def handed(text: str) -> Episode:
        return Episode.objects.create(
            deployment=deployment, request_id=f"gate-{text}", task_text=text, status="out_of_scope",
            result={"status": "out_of_scope", "steps": 0, "request": GATE},
        )  # fmt: skip

    handed("what is the weather tomorrow?")
    placed = handed("my parcel never came")
    confirmed = handed("can you book me a taxi?")
    assert post(op, f"/api/decisions/{step.pk}/correct/", {"none_of_these": True}).status_code == 201
    path = f"/api/decisions/{escalated_step.pk}/review/"
    assert post(op, path, {"status": "escalated", "reason": "a person"}).status_code == 200
    assert post(op, f"/api/episodes/{placed.pk}/correct/", {"intents": ["order_tracking"]}).status_code == 201
    assert post(op, f"/api/episodes/{confirmed.pk}/correct/", {"none_of_these": True}).status_code == 201

    out_of_scope, none_of_these = unplaced(deployment)
    assert sorted(out_of_scope.values_list("task_text", flat=True)) == [
        "can you book me a taxi?", "what is the weather tomorrow?",
    ]  # fmt: skip
    assert list(none_of_these.values_list("task_text", flat=True)) == ["I was charged twice"]
    assert sorted(unplaced_texts(deployment)) == [
        "I was charged twice", "can you book me a taxi?", "what is the weather tomorrow?",
    ]  # fmt: skip


def test_the_proposals_answer_says_how_many_of_each_kind(team):
    project, users = team
    answered, _ = logged_episode(project)
    url = f"/api/deployments/{answered.deployment_id}/intent-proposals/"
    response = client_for(users[Role.OPERATOR]).get(url)
    assert response.status_code == 200, response.content
    assert response.json() == {"out_of_scope": 0, "none_of_these": 0, "tickets": 0, "proposals": []}
