"""A member whose role may not create something hears 403 before anything about their body: no list of
field errors for a request they may not make anyway. A stranger to the project still gets the body's own
"not in your projects" answer, the same as for a project that does not exist."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from mase_web.accounts.models import Membership, Project, Role
from mase_web.runs.models import Run

pytestmark = pytest.mark.django_db

CREATE = {  # the endpoint, and a body that is wrong in every field but the project
    "run": ("/api/runs/", {"spec": 7, "name": ["x"]}),
    "workflow": ("/api/workflows/", {"spec": "not a spec", "name": ""}),
}


@pytest.fixture
def world():
    users = get_user_model().objects
    project, other = Project.objects.create(name="ours"), Project.objects.create(name="theirs")
    annotator = users.create_user("ann", password="pw-123456789")
    Membership.objects.create(user=annotator, project=project, role=Role.ANNOTATOR)
    client = APIClient()
    client.force_authenticate(annotator)
    return client, project, other


@pytest.mark.parametrize("kind", list(CREATE))
def test_a_role_without_the_right_gets_403_before_its_body_is_judged(world, kind):
    client, project, _ = world
    url, body = CREATE[kind]
    answer = client.post(url, {**body, "project": project.pk}, format="json")
    assert answer.status_code == 403, answer.content
    assert answer.json()["errors"] == {}  # not one word about the fields


@pytest.mark.parametrize("kind", list(CREATE))
def test_a_project_the_caller_is_not_in_is_judged_with_the_body_as_before(world, kind):
    client, _, other = world
    url, body = CREATE[kind]
    foreign = client.post(url, {**body, "project": other.pk}, format="json")
    missing = client.post(url, {**body, "project": other.pk + 1000}, format="json")
    assert foreign.status_code == missing.status_code == 400
    assert foreign.json().keys() == missing.json().keys()


def test_deploying_a_run_of_ones_project_without_the_right_is_403_before_the_body(world):
    client, project, other = world
    ours = Run.objects.create(project=project, name="r", spec={}, state=Run.State.SUCCEEDED)
    theirs = Run.objects.create(project=other, name="r", spec={}, state=Run.State.SUCCEEDED)
    bad = {"checkpoint": ["x"], "confidence_threshold": "high"}
    answer = client.post("/api/deployments/", {**bad, "run": ours.pk}, format="json")
    assert answer.status_code == 403 and answer.json()["errors"] == {}
    foreign = client.post("/api/deployments/", {**bad, "run": theirs.pk}, format="json")
    missing = client.post("/api/deployments/", {**bad, "run": theirs.pk + 1000}, format="json")
    assert foreign.status_code == missing.status_code == 400
