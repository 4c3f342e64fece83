"""A spec never reaches the server's files: validate, import, launch and the worker refuse paths, with
one message whether the file exists or not (no file-existence oracle)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from agents import places
from agents.envs.customer_service.tickets import TICKET_FILES
from mase_web.accounts.models import Role
from mase_web.runs.execution import execute
from mase_web.runs.models import Run, RunEvent

pytestmark = pytest.mark.django_db
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
TICKETS = "$.environment.params.tickets"


def cs_spec(tickets: str) -> dict:
    spec = json.loads((EXAMPLES / "customer_service.json").read_text())
    spec["environment"]["params"] = {**spec["environment"].get("params", {}), "tickets": tickets}
    return spec


@pytest.fixture
def pm_client(team):
    project, _, users, workflow = team
    client = APIClient()
    client.force_login(users[Role.PRODUCT_MANAGER])
    return client, project, workflow


@pytest.mark.parametrize("endpoint", ["validate", "import", "launch"])
def test_paths_answer_alike_whether_the_file_exists_or_not(pm_client, endpoint):
    client, project, workflow = pm_client
    answers = []
    for path in ("/etc/passwd", "/no/such/file.jsonl"):
        if endpoint == "validate":
            r = client.post(f"/api/workflows/{workflow.pk}/validate/", {"spec": cs_spec(path)}, format="json")
            assert r.status_code == 200 and r.json()["valid"] is False
            answers.append({e["path"]: e["message"] for e in r.json()["errors"]})
        elif endpoint == "import":
            r = client.post(f"/api/workflows/{workflow.pk}/import/", {"spec": cs_spec(path)}, format="json")
            assert r.status_code == 400
            answers.append(r.json()["errors"])
        else:
            body = {"project": project.pk, "name": "x", "spec": cs_spec(path)}
            r = client.post("/api/runs/", body, format="json")
            assert r.status_code == 400
            answers.append(r.json()["errors"])
    assert answers[0] == answers[1]
    assert places.refusal(TICKET_FILES) in json.dumps(answers[0])
    assert Run.objects.count() == 0


def test_a_ticket_file_named_in_the_servers_directory_is_accepted(pm_client):
    client, project, workflow = pm_client
    source = Path(settings.BASE_DIR) / "data" / "customer_service" / "test.jsonl"
    settings.TICKETS_DIR.mkdir(parents=True, exist_ok=True)
    (settings.TICKETS_DIR / "spring-sale.jsonl").write_text(source.read_text())
    r = client.post(
        f"/api/workflows/{workflow.pk}/validate/", {"spec": cs_spec("spring-sale")}, format="json"
    )
    assert r.status_code == 200 and r.json()["valid"] is True, r.content
    r = client.post(f"/api/workflows/{workflow.pk}/validate/", {"spec": cs_spec("autumn")}, format="json")
    assert r.json()["errors"] == [{"path": TICKETS, "message": places.missing("autumn", TICKET_FILES)}]


@pytest.mark.django_db(transaction=True)  # the run's event recorder writes from its own thread
def test_the_worker_refuses_a_stored_spec_that_names_a_path(team):
    """A spec written past the API (an old row, the admin) still never reaches the file system."""
    project, *_ = team
    run = Run.objects.create(project=project, name="old", spec=cs_spec("/etc/passwd"))
    assert execute(run.pk, "task-1") == Run.State.FAILED
    run.refresh_from_db()
    assert TICKETS in run.error and "paths are not accepted" in run.error
    assert RunEvent.objects.filter(run=run, type="finished").count() == 1


# Every environment parameter that names data, a shipped name for it, and what it names.
DATA_PARAMS = [
    ("collaborative_writing", "briefs", "briefs"),
    ("code_generation", "tasks", "tasks"),
    ("research_report", "corpus", None),
]


def spec_with(environment: str, **params) -> dict:
    spec = json.loads((EXAMPLES / f"{environment}.json").read_text())
    spec["environment"]["params"] = {**spec["environment"].get("params", {}), **params}
    return spec


@pytest.mark.parametrize(("environment", "key", "_"), DATA_PARAMS)
def test_data_paths_answer_alike_on_every_endpoint(pm_client, environment, key, _):
    """/etc/passwd (a file that exists), /etc (a directory that exists) and a missing path all get the
    same 400 at the parameter's field, and nothing is stored or launched."""
    client, project, workflow = pm_client
    field = f"$.environment.params.{key}"
    answers: dict[str, list] = {"validate": [], "import": [], "launch": []}
    for path in ("/etc/passwd", "/etc", "/no/such/file.jsonl"):
        spec = spec_with(environment, **{key: path})
        r = client.post(f"/api/workflows/{workflow.pk}/validate/", {"spec": spec}, format="json")
        assert r.status_code == 200 and r.json()["valid"] is False
        answers["validate"].append(r.json()["errors"])
        r = client.post(f"/api/workflows/{workflow.pk}/import/", {"spec": spec}, format="json")
        assert r.status_code == 400
        answers["import"].append(r.json()["errors"])
        r = client.post("/api/runs/", {"project": project.pk, "name": "x", "spec": spec}, format="json")
        assert r.status_code == 400
        answers["launch"].append(r.json()["errors"])
    for endpoint, bodies in answers.items():
        assert bodies[0] == bodies[1] == bodies[2], endpoint
    assert answers["validate"][0] == [{"path": field, "message": answers["validate"][0][0]["message"]}]
    assert "paths are not accepted" in answers["validate"][0][0]["message"]
    assert answers["launch"][0] == {f"spec.{field}": [answers["validate"][0][0]["message"]]}
    assert Run.objects.count() == 0


@pytest.mark.parametrize(("environment", "key", "shipped"), DATA_PARAMS)
def test_shipped_and_own_data_names_are_accepted(pm_client, environment, key, shipped):
    client, project, workflow = pm_client
    own = settings.DATASETS_DIR / environment
    source = Path(settings.BASE_DIR) / "data" / environment
    own.mkdir(parents=True, exist_ok=True)
    if key == "corpus":
        (own / "spring").mkdir(exist_ok=True)
        for name in ("topics.jsonl", "documents.jsonl"):
            (own / "spring" / name).write_text((source / name).read_text())
    else:
        (own / "spring.jsonl").write_text((source / f"{shipped}.jsonl").read_text())
    for value in [name for name in (shipped, "spring", None) if name is not None or key == "corpus"]:
        spec = spec_with(environment, **{key: value})
        r = client.post(f"/api/workflows/{workflow.pk}/validate/", {"spec": spec}, format="json")
        assert r.status_code == 200 and r.json()["valid"] is True, (value, r.content)
    r = client.post(
        "/api/runs/",
        {"project": project.pk, "name": "x", "spec": spec_with(environment, **{key: "spring"})},
        format="json",
    )
    assert r.status_code == 201, r.content
    r = client.post(
        f"/api/workflows/{workflow.pk}/validate/",
        {"spec": spec_with(environment, **{key: "autumn"})},
        format="json",
    )
    (error,) = r.json()["errors"]
    assert error["path"] == f"$.environment.params.{key}" and "'autumn'" in error["message"]
    assert str(settings.DATASETS_DIR) not in error["message"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("environment", "key", "_"), DATA_PARAMS)
def test_the_worker_never_reads_a_data_path_from_a_stored_spec(team, environment, key, _):
    """Code generation runs the tests its task file holds: a stored spec naming a path fails before any
    file is read."""
    project, *_ = team
    run = Run.objects.create(project=project, name="old", spec=spec_with(environment, **{key: "/etc/passwd"}))
    assert execute(run.pk, "task-1") == Run.State.FAILED
    run.refresh_from_db()
    assert f"$.environment.params.{key}" in run.error and "paths are not accepted" in run.error
    assert "/etc/passwd" not in run.error


def test_the_catalogue_shows_no_server_path(pm_client):
    client, *_ = pm_client
    body = client.get("/api/workflows/catalogue/").content.decode()
    for directory in (settings.BASE_DIR, settings.DATA_DIR, settings.DATASETS_DIR):
        assert str(directory) not in body
    environments = json.loads(body)["environments"]
    declared = {p["name"]: p["data"] for p in environments["code_generation"]}
    assert declared["tasks"]["folder"] == "code_generation"
