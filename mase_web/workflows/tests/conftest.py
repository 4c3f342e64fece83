"""A project with one member per role, an outsider, and a published workflow to act on."""

from __future__ import annotations

import copy

import pytest
from django.contrib.auth import get_user_model

from mase_web.accounts.models import Membership, Project, Role
from mase_web.workflows import documents
from mase_web.workflows.models import Workflow, WorkflowVersion


def template_spec(slug: str = "collaborative_writing") -> dict:
    return copy.deepcopy(documents.template(slug).spec)


@pytest.fixture
def team(db):
    User = get_user_model()
    project = Project.objects.create(name="Support team")
    other = Project.objects.create(name="Someone else's")
    users = {role: User.objects.create_user(f"u_{role}") for role in Role.values}
    for role, user in users.items():
        Membership.objects.create(project=project, user=user, role=role)
    users["outsider"] = User.objects.create_user("outsider")
    Membership.objects.create(project=other, user=users["outsider"], role=Role.ADMIN)
    users["superuser"] = User.objects.create_superuser("root")
    pm = users[Role.PRODUCT_MANAGER]
    workflow = Workflow.objects.create(
        project=project,
        name="Writing",
        spec=template_spec(),
        layout={"planner": {"x": 0, "y": 0}},
        created_by=pm,
    )
    WorkflowVersion.objects.create(workflow=workflow, number=1, spec=workflow.spec, note="first", author=pm)
    return project, other, users, workflow
