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
    r = client.post(f"/api/workflows/{workflow.pk}/validate/", {"spec": cs_spec("spring-sale")}, format="json")
    assert r.status_code == 200 and r.json()["valid"] is True, r.content
    r = client.post(f"/api/workflows/{workflow.pk}/validate/", {"spec": cs_spec("autumn")}, format="json")
    assert r.json()["errors"] == [
        {"path": TICKETS, "message": places.missing("autumn", TICKET_FILES)}
    ]


@pytest.mark.django_db(transaction=True)  # the run's event recorder writes from its own thread
def test_the_worker_refuses_a_stored_spec_that_names_a_path(team):
    """A spec written past the API (an old row, the admin) still never reaches the file system."""
    project, *_ = team
    run = Run.objects.create(project=project, name="old", spec=cs_spec("/etc/passwd"))
    assert execute(run.pk, "task-1") == Run.State.FAILED
    run.refresh_from_db()
    assert TICKETS in run.error and "paths are not accepted" in run.error
    assert RunEvent.objects.filter(run=run, type="finished").count() == 1
