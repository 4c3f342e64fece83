"""Fixtures of the feedback tests: three annotators, a manager, an operator, a stranger; queue helpers."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from mase_web.accounts.models import Membership, Project, Role
from mase_web.runs.tests.conftest import client_for


@pytest.fixture
def people(db):
    """{name: user} and the project they work in (the stranger manages another project)."""
    User = get_user_model()
    project, elsewhere = Project.objects.create(name="support"), Project.objects.create(name="elsewhere")
    roles = {
        "ann1": Role.ANNOTATOR,
        "ann2": Role.ANNOTATOR,
        "ann3": Role.ANNOTATOR,
        "pm": Role.PRODUCT_MANAGER,
        "op": Role.OPERATOR,
    }
    users = {}
    for name, role in roles.items():
        users[name] = User.objects.create_user(name, password="pw-for-tests-123")
        Membership.objects.create(project=project, user=users[name], role=role)
    users["stranger"] = User.objects.create_user("stranger", password="pw-for-tests-123")
    Membership.objects.create(project=elsewhere, user=users["stranger"], role=Role.PRODUCT_MANAGER)
    return project, users


def snapshot(task: str, answer: str = "refund issued", confidence: float = 0.9) -> dict:
    return {
        "task": task,
        "answer": answer,
        "steps": [
            {
                "step": 0,
                "agent": "router",
                "action": "refund",
                "confidence": confidence,
                "messages": {"in": []},
            },
            {"step": 1, "agent": "resolver", "action": "answer", "confidence": 0.8, "messages": {}},
        ],
    }


def make_queue(pm, project, **fields) -> dict:
    body = {"project": project.pk, "name": "tickets", "guidelines": "Rate helpfulness.", "overlap": 2,
            "tags": ["wrong intent", "rude", "great"], **fields}  # fmt: skip
    response = client_for(pm).post("/api/feedback/queues/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def enqueue(pm, queue_id: int, keys: list[str]) -> list[int]:
    items = [{"episode_key": key, "snapshot": snapshot(f"ticket {key}")} for key in keys]
    response = client_for(pm).post(
        f"/api/feedback/queues/{queue_id}/enqueue/", {"items": items}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()["items"]
