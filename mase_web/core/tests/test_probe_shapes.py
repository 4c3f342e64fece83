"""Request shapes a security probe once turned into 500s, kept as regression tests (both databases in CI):

- a JSON body that is not an object (an array, a string, a number) on any endpoint;
- a ``spec`` that is not an object next to launch ``overrides``;
- a non-numeric object id in any URL of the API (every path parameter but a template's slug);
- an annotator's invalid edit or creation of a queue: refused for the role (403) before the body is judged
  (400).
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.urls import resolve
from django.urls.exceptions import Resolver404
from rest_framework.test import APIClient

from mase_web.accounts.models import Membership, Project, Role
from mase_web.deployments.models import DecisionStep, Deployment, Episode
from mase_web.feedback.tests.conftest import make_queue
from mase_web.runs.models import Run
from mase_web.workflows.tests.conftest import template_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db):
    User = get_user_model()
    project = Project.objects.create(name="probed")
    users = {}
    for name, role in [("pm", Role.PRODUCT_MANAGER), ("ann", Role.ANNOTATOR), ("op", Role.OPERATOR)]:
        users[name] = User.objects.create_user(name)
        Membership.objects.create(project=project, user=users[name], role=role)
    run = Run.objects.create(project=project, name="r", spec=template_spec(), state=Run.State.SUCCEEDED)
    deployment = Deployment.objects.create(
        project=project, name="cs", run=run, checkpoint="/nonexistent", spec=template_spec()
    )
    episode = Episode.objects.create(
        deployment=deployment, request_id="p-1", task_text="late", status="completed"
    )
    step = DecisionStep.objects.create(
        episode=episode, step=0, agent="router", observation="{}", action="refund", source="model"
    )
    queue = make_queue(users["pm"], project)
    return {"project": project, "users": users, "deployment": deployment, "step": step, "queue": queue["id"]}


def client(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


@pytest.mark.parametrize("body", ["[]", '[{"jsonl": "{}"}]', '"text"', "7", "null", "true"])
def test_a_json_body_that_is_not_an_object_is_a_400(world, body):
    pm = world["users"]["pm"]
    for url in [
        f"/api/deployments/{world['deployment'].pk}/batches/",
        "/api/runs/",
        f"/api/feedback/queues/{world['queue']}/enqueue/",
        "/api/notifications/ping/",
    ]:
        response = client(pm).post(url, data=body, content_type="application/json")
        assert response.status_code == 400, (url, response.content)
        assert "must be a JSON object" in " ".join(response.json()["errors"]["body"]), response.json()


@pytest.mark.parametrize("spec", [[], ["a"], "spec", 3, None, True])
def test_a_spec_that_is_not_an_object_with_overrides_is_a_400(world, spec):
    body = {"project": world["project"].pk, "name": "probe", "spec": spec, "overrides": {"episodes": 5}}
    response = client(world["users"]["pm"]).post("/api/runs/", body, format="json")
    assert response.status_code == 400, response.content
    assert "spec" in response.json()["errors"], response.json()
    assert not Run.objects.filter(name="probe").exists()


def _schema() -> dict:
    root = get_user_model().objects.create_superuser("schema-reader", "s@example.org", "unused")
    response = client(root).get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def _api_paths_with_ids() -> list[str]:
    """Every documented path with an object id, the ids written as a non-numeric word."""
    schema = _schema()
    paths = [p for p in schema["paths"] if "{" in p and "{slug}" not in p]
    return [re.sub(r"\{[^}]+\}", "abc", p) for p in paths]


def test_a_non_numeric_id_anywhere_is_a_404(world):
    paths = _api_paths_with_ids()
    assert len(paths) > 30 and "/api/decisions/abc/review/" in paths
    op = world["users"]["op"]
    for path in paths:
        with pytest.raises(Resolver404):
            resolve(path)
        for method in ("get", "post", "patch"):
            response = getattr(client(op), method)(path, data={}, format="json")
            assert response.status_code == 404, (method, path, response.content)
            assert response["Content-Type"] == "application/json", (method, path)


def test_reviewing_and_annotating_a_non_numeric_decision_is_a_404_and_a_real_one_works(world):
    op, step = world["users"]["op"], world["step"]
    for action in ("review", "annotate"):
        for word in ("abc", "1e3", "٣"):  # "٣" is a digit to str.isdigit, not to the URL
            response = client(op).post(f"/api/decisions/{word}/{action}/", {"status": "ok"}, format="json")
            assert response.status_code == 404, (action, word, response.content)
    response = client(op).post(f"/api/decisions/{step.pk}/review/", {"status": "ok"}, format="json")
    assert response.status_code == 200, response.content
    step.refresh_from_db()
    assert step.review_status == "ok"


def test_an_annotators_queue_edit_is_refused_for_the_role_before_the_body_is_judged(world):
    ann, pm, queue = world["users"]["ann"], world["users"]["pm"], world["queue"]
    url = f"/api/feedback/queues/{queue}/"
    for body in ({"overlap": "many", "name": ""}, {"overlap": -1}, {"name": "renamed"}):
        response = client(ann).patch(url, body, format="json")
        assert response.status_code == 403, (body, response.content)
    # the manager's invalid edit is judged (400), and a valid one lands
    response = client(pm).patch(url, {"overlap": "many"}, format="json")
    assert response.status_code == 400 and "overlap" in response.json()["errors"], response.content
    response = client(pm).patch(url, {"name": "renamed"}, format="json")
    assert response.status_code == 200 and response.json()["name"] == "renamed", response.content


def test_every_request_body_is_an_object(db):
    """The parser refuses any other JSON document (api_parsers), so no operation may document another."""
    schema = _schema()
    components = schema["components"]["schemas"]
    bodies = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for media, content in operation.get("requestBody", {}).get("content", {}).items():
                body = content.get("schema", {})
                if "$ref" in body:
                    body = components[body["$ref"].rsplit("/", 1)[-1]]
                assert body.get("type") == "object", (method, path, media, body)
                bodies += 1
    assert bodies > 20


def test_an_annotators_new_queue_is_refused_for_the_role_before_the_body_is_judged(world):
    ann, pm, project = world["users"]["ann"], world["users"]["pm"], world["project"].pk
    for body in ({"project": project, "overlap": "many", "name": ""}, {"project": project, "name": "mine"}):
        response = client(ann).post("/api/feedback/queues/", body, format="json")
        assert response.status_code == 403, (body, response.content)
    # the project itself is judged first, the same for everyone: missing, or not among the caller's
    outsider = Project.objects.create(name="elsewhere").pk
    for body in ({"name": ""}, {"project": outsider, "name": ""}, {"project": "x"}):
        response = client(ann).post("/api/feedback/queues/", body, format="json")
        assert response.status_code == 400 and list(response.json()["errors"]) == ["project"], (
            response.content
        )
    response = client(pm).post(
        "/api/feedback/queues/", {"project": project, "overlap": "many"}, format="json"
    )
    assert response.status_code == 400 and "overlap" in response.json()["errors"], response.content
    response = client(pm).post("/api/feedback/queues/", {"project": project, "name": "second"}, format="json")
    assert response.status_code == 201 and response.json()["name"] == "second", response.content
