"""Hostile input anywhere in the API is a 400 naming the field: lone surrogates, NUL characters, non-finite
numbers, JSON nested far too deep, integers out of the 64-bit range. Nothing is stored, and the reads that
a stored value would have broken keep answering 200."""

from __future__ import annotations

import io
import json

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from mase_web.accounts.models import Membership, Project, Role
from mase_web.deployments.models import BatchJob, Deployment
from mase_web.feedback.models import FeedbackItem
from mase_web.feedback.tests.conftest import enqueue, make_queue, snapshot
from mase_web.runs.models import Run
from mase_web.workflows.models import Workflow
from mase_web.workflows.tests.conftest import template_spec

pytestmark = pytest.mark.django_db

DEEP = b"[" * 100_000 + b"]" * 100_000
HUGE = "99999999999999999999"


@pytest.fixture
def world(db):
    """A project with a manager, an annotator and an operator; a queue, a workflow, a run, a deployment."""
    User = get_user_model()
    project = Project.objects.create(name="hostile")
    users = {}
    for name, role in [("pm", Role.PRODUCT_MANAGER), ("ann", Role.ANNOTATOR), ("op", Role.OPERATOR)]:
        users[name] = User.objects.create_user(name)
        Membership.objects.create(project=project, user=users[name], role=role)
    queue = make_queue(users["pm"], project, overlap=1)
    enqueue(users["pm"], queue["id"], ["run/1"])
    workflow = Workflow.objects.create(
        project=project, name="Writing", spec=template_spec(), layout={"planner": {"x": 0, "y": 0}}
    )
    run = Run.objects.create(project=project, name="r", spec=template_spec())
    deployment = Deployment.objects.create(
        project=project, name="cs", run=run, checkpoint="/nonexistent", spec=template_spec()
    )
    return {"project": project, "users": users, "queue": queue["id"], "workflow": workflow, "run": run,
            "deployment": deployment}  # fmt: skip


def client(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def send(user, method: str, url: str, body) -> object:
    """Send ``body`` as ASCII JSON, so a lone surrogate travels as the escape "\\ud800"."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return getattr(client(user), method)(url, data=raw, content_type="application/json")


def assert_400(response, field: str, fragment: str = "") -> None:
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert field in errors, errors
    assert fragment in " ".join(errors[field]), errors


def assert_reads_answer(world) -> None:
    """The reads a stored bad value used to break."""
    pm, ann = world["users"]["pm"], world["users"]["ann"]
    assert client(pm).get(f"/api/feedback/queues/{world['queue']}/items/").status_code == 200
    assert client(ann).get("/api/feedback/my-items/").status_code == 200
    assert client(pm).get(f"/api/workflows/{world['workflow'].pk}/").status_code == 200
    assert client(pm).get("/api/runs/").status_code == 200


def _enqueue_with_meta(world, meta: dict):
    item = {"episode_key": "run/2", "snapshot": {**snapshot("t"), "meta": meta}}
    return send(
        world["users"]["pm"], "post", f"/api/feedback/queues/{world['queue']}/enqueue/", {"items": [item]}
    )


@pytest.mark.parametrize(
    "meta, field, fragment",
    [
        ({"x": "a\ud800b"}, "items[0].snapshot.meta.x", "surrogate"),
        ({"x": ["ok", {"y": "\udfff"}]}, "items[0].snapshot.meta.x[1].y", "surrogate"),
        ({"\ud800": 1}, "items[0].snapshot.meta.\\ud800", "surrogate"),
        ({"x": "a\x00b"}, "items[0].snapshot.meta.x", "NUL"),
        ({"x\x00": 1}, "items[0].snapshot.meta.x\\u0000", "NUL"),
    ],
)
def test_unencodable_text_in_a_snapshot_is_refused(world, meta, field, fragment):
    r = _enqueue_with_meta(world, meta)
    assert_400(r, field, fragment)
    assert FeedbackItem.objects.count() == 1
    assert_reads_answer(world)


def test_infinite_number_in_a_snapshot_is_refused(world):
    item = {"episode_key": "run/2", "snapshot": {**snapshot("t"), "meta": {"x": "INF"}}}
    raw = json.dumps({"items": [item]}).replace('"INF"', "1e999").encode()
    r = send(world["users"]["pm"], "post", f"/api/feedback/queues/{world['queue']}/enqueue/", raw)
    assert_400(r, "items[0].snapshot.meta.x", "finite")
    assert FeedbackItem.objects.count() == 1
    assert_reads_answer(world)


@pytest.mark.parametrize("url", ["/api/runs/", "enqueue"])
def test_json_nested_far_too_deep_is_refused(world, url):
    if url == "enqueue":
        url = f"/api/feedback/queues/{world['queue']}/enqueue/"
    r = send(world["users"]["pm"], "post", url, DEEP)
    assert_400(r, "body", "nested")
    assert Run.objects.count() == 1 and FeedbackItem.objects.count() == 1
    assert_reads_answer(world)


def test_json_deeper_than_the_limit_but_readable_names_where(world):
    item = {"episode_key": "run/2", "snapshot": {**snapshot("t"), "meta": {"x": "LEAF"}}}
    raw = json.dumps({"items": [item]}).replace('"LEAF"', "[" * 300 + "]" * 300).encode()
    r = send(world["users"]["pm"], "post", f"/api/feedback/queues/{world['queue']}/enqueue/", raw)
    assert r.status_code == 400
    [(path, messages)] = r.json()["errors"].items()
    assert path.startswith("items[0].snapshot.meta.x[0][0]") and "deeper than 200" in messages[0]
    assert FeedbackItem.objects.count() == 1


def test_a_surrogate_in_a_layout_key_is_refused(world):
    workflow = world["workflow"]
    r = send(
        world["users"]["pm"],
        "patch",
        f"/api/workflows/{workflow.pk}/",
        {"layout": {"\ud800": {"x": 0, "y": 0}}},
    )
    assert_400(r, "layout.\\ud800", "surrogate")
    workflow.refresh_from_db()
    assert workflow.layout == {"planner": {"x": 0, "y": 0}}
    assert_reads_answer(world)


@pytest.mark.parametrize("bad, fragment", [("\ud800", "surrogate"), ("\x00", "NUL")])
@pytest.mark.parametrize("endpoint", ["validate", "import", "import-into", "create", "patch"])
def test_unencodable_text_in_a_spec_is_refused_everywhere(world, endpoint, bad, fragment):
    pm, workflow, project = world["users"]["pm"], world["workflow"], world["project"]
    spec = template_spec()
    spec["agents"][0]["prompt"] = f"write {bad} well"
    method, url, body = {
        "validate": ("post", f"/api/workflows/{workflow.pk}/validate/", {"spec": spec}),
        "import": ("post", "/api/workflows/import/", {"project": project.pk, "spec": spec}),
        "import-into": ("post", f"/api/workflows/{workflow.pk}/import/", {"spec": spec}),
        "create": ("post", "/api/workflows/", {"project": project.pk, "name": "w", "spec": spec}),
        "patch": ("patch", f"/api/workflows/{workflow.pk}/", {"spec": spec}),
    }[endpoint]
    r = send(pm, method, url, body)
    assert_400(r, "spec.agents[0].prompt", fragment)
    assert Workflow.objects.count() == 1
    workflow.refresh_from_db()
    assert workflow.spec == template_spec()
    assert_reads_answer(world)


def test_nul_in_a_run_name_is_refused(world):
    body = {"project": world["project"].pk, "name": "r\x00", "spec": template_spec()}
    r = send(world["users"]["pm"], "post", "/api/runs/", body)
    assert_400(r, "name", "NUL")
    assert Run.objects.count() == 1
    assert_reads_answer(world)


def test_integers_beyond_64_bits_in_a_body_are_refused(world):
    raw = json.dumps({"name": "r", "workflow": 1}).replace('"workflow": 1', f'"workflow": {HUGE}').encode()
    r = send(world["users"]["pm"], "post", "/api/runs/", raw)
    assert_400(r, "workflow", "64-bit")
    assert Run.objects.count() == 1


@pytest.mark.parametrize(
    "who, url, field",
    [
        ("op", f"/api/decisions/?episode={HUGE}", "episode"),
        ("op", f"/api/decisions/?batch={HUGE}", "batch"),
        ("ann", f"/api/feedback/my-items/?queue={HUGE}", "queue"),
        ("pm", f"/api/datasets/?project={HUGE}", "project"),  # a list filter's id (mase_web.api_filters)
        ("op", f"/api/dataset-versions/?dataset={HUGE}", "dataset"),
    ],
)
def test_integer_query_parameters_are_bounded(world, who, url, field):
    r = client(world["users"][who]).get(url)
    assert_400(r, field)
    assert_reads_answer(world)


@pytest.mark.parametrize(
    "url", ["/api/runs/{run}/events/?type=%00", "/api/runs/?search=a%00b", "/api/decisions/?q=%00"]
)
def test_nul_in_a_query_parameter_is_refused(world, url):
    param = url.split("?")[1].split("=")[0]
    r = client(world["users"]["op"]).get(url.format(run=world["run"].pk))
    assert_400(r, param, "NUL")
    assert client(world["users"]["op"]).get(f"/api/runs/{world['run'].pk}/events/?type=x").status_code == 200


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("[" * 100_000 + "]" * 100_000, "nested"),
        ('{"id": "1", "text": "broken \\ud800 lamp"}', "surrogate"),
        ('{"id": "1", "text": "broken \\u0000 lamp"}', "NUL"),
        ('{"id": 1e999, "text": "broken lamp"}', "finite"),
    ],
)
@pytest.mark.parametrize("how", ["json", "multipart"])
def test_bad_jsonl_lines_name_the_line(world, line, fragment, how):
    text = '{"id": "0", "text": "hello"}\n' + line + "\n"
    url = f"/api/deployments/{world['deployment'].pk}/batches/"
    if how == "json":
        r = send(world["users"]["op"], "post", url, {"jsonl": text})
    else:
        upload = io.BytesIO(text.encode())
        upload.name = "tickets.jsonl"
        r = client(world["users"]["op"]).post(url, {"file": upload}, format="multipart")
    assert_400(r, "file", "line 2")
    assert fragment in r.json()["errors"]["file"][0]
    assert BatchJob.objects.count() == 0
    assert client(world["users"]["op"]).get(url).status_code == 200


def test_a_raw_nul_in_an_uploaded_file_names_the_line(world):
    url = f"/api/deployments/{world['deployment'].pk}/batches/"
    upload = io.BytesIO(b'{"id": "0", "text": "hello"}\n{"id": "1", "text": "a\x00b"}\n')
    upload.name = "tickets.jsonl"
    r = client(world["users"]["op"]).post(url, {"file": upload}, format="multipart")
    assert_400(r, "file", "line 2")
    assert "NUL" in r.json()["errors"]["file"][0]
    assert BatchJob.objects.count() == 0


def test_nul_in_a_form_field_is_refused(world):
    url = f"/api/deployments/{world['deployment'].pk}/batches/"
    r = client(world["users"]["op"]).post(url, {"jsonl": '{"id": "1", "text": "a\x00b"}'}, format="multipart")
    assert_400(r, "jsonl", "NUL")
    assert BatchJob.objects.count() == 0


def test_valid_input_still_goes_through(world):
    r = _enqueue_with_meta(world, {"x": "caf\u00e9 \U0001f600", "n": 1.5, "big": 2**63 - 1})
    assert r.status_code == 201, r.content
    assert_reads_answer(world)
