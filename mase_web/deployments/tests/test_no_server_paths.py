"""No answer names a path on the server, and no run whose stored spec gives one is deployed or served.

A run trained on the server writes its checkpoints under its run directory (MASE_DATA_DIR/runs/<id>/);
the deployments, feedback and runs endpoints name a checkpoint relative to its run, and keep the full
path only in the database, where the server loads the team from it.
"""

from __future__ import annotations

import copy
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from mase_web.accounts.models import Role
from mase_web.deployments.models import Deployment
from mase_web.deployments.tests.conftest import (
    client_for,
    fresh_text,
    make_deployment,
    make_trained_run,
    team_spec,
)
from mase_web.runs.models import Checkpoint, RunEvent

pytestmark = pytest.mark.django_db


def strings(value):
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def server_paths(body) -> list[str]:
    """The strings of a JSON answer that start with a path or hold one of the server's directories."""
    roots = {str(settings.DATA_DIR), str(settings.MODELS_DIR), str(settings.BASE_DIR)}
    return [s for s in strings(body) if s.startswith("/") or any(root in s for root in roots)]


def run_with_checkpoint_in_its_directory(project, trained_checkpoint: Path, spec: dict):
    """A succeeded run laid out as training on the server leaves it: its checkpoint under its directory,
    a checkpoint row and a 'checkpoint' event naming it by the server's path."""
    run = make_trained_run(project, None, spec)
    where = run.out_dir / "checkpoints" / "mappo" / "last"
    shutil.copytree(trained_checkpoint, where)
    Checkpoint.objects.create(run=run, step=2, path=str(where))
    payload = {"step": 2, "path": str(where), "metrics": {}}
    RunEvent.objects.create(run=run, seq=1, type="checkpoint", payload=payload, time=timezone.now())
    return run, where


def test_no_answer_of_a_normal_flow_names_a_server_path(team, trained_checkpoint, tiny_backbone_dir):
    project, users = team
    pm, operator = client_for(users[Role.PRODUCT_MANAGER]), client_for(users[Role.OPERATOR])
    annotator = client_for(users[Role.ANNOTATOR])
    run, where = run_with_checkpoint_in_its_directory(
        project, trained_checkpoint, team_spec(tiny_backbone_dir)
    )
    answers = {}

    def get(client, url):
        response = client.get(url)
        assert response.status_code == 200, (url, response.content)
        answers[f"GET {url}"] = response.json()
        return response.json()

    def post(client, url, body):
        response = client.post(url, body, format="json")
        assert response.status_code in (200, 201), (url, response.content)
        answers[f"POST {url}"] = response.json()
        return response.json()

    for url in ("/api/runs/", f"/api/runs/{run.pk}/", f"/api/runs/{run.pk}/events/"):
        get(pm, url)
    assert get(pm, f"/api/runs/{run.pk}/checkpoints/")[0]["path"] == "checkpoints/mappo/last"
    get(pm, "/api/deployments/candidates/")
    assert get(pm, f"/api/deployments/preview/?run={run.pk}")["checkpoint"] == "checkpoints/mappo/last"

    deployed = post(pm, "/api/deployments/", {"run": run.pk, "name": "shop front"})
    assert deployed["checkpoint"] == "checkpoints/mappo/last"
    assert Deployment.objects.get(pk=deployed["id"]).checkpoint == str(where)  # the server still loads it
    for text in (fresh_text("where is my parcel?"), fresh_text()):
        post(operator, f"/api/deployments/{deployed['id']}/tickets/", {"text": text})
    for url in (
        "/api/deployments/",
        f"/api/deployments/{deployed['id']}/",
        f"/api/deployments/{deployed['id']}/generation/",
        f"/api/deployments/{deployed['id']}/transitions/",
        f"/api/deployments/{deployed['id']}/batches/",
        f"/api/episodes/?deployment={deployed['id']}",
        f"/api/decisions/?deployment={deployed['id']}",
    ):
        get(operator, url)

    queue = post(pm, "/api/feedback/queues/", {"project": project.pk, "name": "tickets", "overlap": 1})
    added = post(
        pm, f"/api/feedback/queues/{queue['id']}/enqueue-deployment/", {"deployment": deployed["id"]}
    )
    assert added["added"] == 2
    items = get(pm, f"/api/feedback/queues/{queue['id']}/items/")["results"]
    assert {i["snapshot"]["meta"]["checkpoint"] for i in items} == {"checkpoints/mappo/last"}
    assert {i["snapshot"]["meta"]["run"] for i in items} == {run.pk}
    get(annotator, "/api/feedback/my-items/")

    found = {where: server_paths(body) for where, body in answers.items() if server_paths(body)}
    assert found == {}


def test_a_run_whose_stored_spec_gives_a_path_is_not_deployed_nor_served(
    team, trained_checkpoint, tiny_backbone_dir
):
    """A run stored before the server refused paths: its spec reads tickets from a file the server has."""
    project, users = team
    spec = team_spec(tiny_backbone_dir)
    spec["environment"]["params"]["tickets"] = str(
        Path(settings.BASE_DIR) / "data" / "customer_service" / "train.jsonl"
    )
    run = make_trained_run(project, trained_checkpoint, spec)
    pm = client_for(users[Role.PRODUCT_MANAGER])

    refused = pm.post("/api/deployments/", {"run": run.pk}, format="json")
    assert refused.status_code == 400 and list(refused.json()["errors"]) == ["run"]
    message = refused.json()["errors"]["run"][0]
    assert "$.environment.params.tickets" in message and "paths are not accepted" in message
    assert str(settings.BASE_DIR) not in refused.content.decode()
    assert not Deployment.objects.exists()
    why = {c["id"]: c["why"] for c in pm.get("/api/deployments/candidates/").json()}
    assert "$.environment.params.tickets" in why[run.pk]
    previewed = pm.get(f"/api/deployments/preview/?run={run.pk}")
    assert (
        previewed.status_code == 400
        and "$.environment.params.tickets" in previewed.json()["errors"]["run"][0]
    )

    # One stored as a deployment before the check: the server refuses to build its team.
    deployment = make_deployment(project, trained_checkpoint, copy.deepcopy(spec))
    answered = client_for(users[Role.OPERATOR]).post(
        f"/api/deployments/{deployment.pk}/tickets/", {"text": fresh_text()}, format="json"
    )
    assert answered.status_code == 400, answered.content
    assert "$.environment.params.tickets" in str(answered.json()["errors"])
    assert str(settings.BASE_DIR) not in answered.content.decode()


def test_errors_name_no_server_path(team, trained_checkpoint, tiny_backbone_dir):
    """The library's errors name the files they opened; answers show them without the server's paths."""
    project, users = team
    run, where = run_with_checkpoint_in_its_directory(
        project, trained_checkpoint, team_spec(tiny_backbone_dir)
    )
    deployed = client_for(users[Role.PRODUCT_MANAGER]).post(
        "/api/deployments/", {"run": run.pk}, format="json"
    )
    assert deployed.status_code == 201, deployed.content
    (where / "model.safetensors").unlink()  # the checkpoint lost its weights since it was deployed
    answered = client_for(users[Role.OPERATOR]).post(
        f"/api/deployments/{deployed.json()['id']}/tickets/", {"text": fresh_text()}, format="json"
    )
    assert answered.status_code == 400, answered.content
    message = answered.json()["errors"]["checkpoint"][0]
    assert f"run {run.pk}/checkpoints/mappo/last" in message and server_paths(answered.json()) == []

    # A run that failed: its error event (message and traceback) and its error, through the API and stream.
    code = Path(settings.BASE_DIR) / "training" / "api.py"
    traceback = f'File "{code}", line 3, in train\nFileNotFoundError: {settings.MODELS_DIR / "qwen"}'
    failure = {"message": f"FileNotFoundError: {where / 'state.json'}", "traceback": traceback}
    event = RunEvent.objects.create(run=run, seq=2, type="error", payload=failure, time=timezone.now())
    run.error = failure["message"]
    run.save(update_fields=["error"])
    pm = client_for(users[Role.PRODUCT_MANAGER])
    events = pm.get(f"/api/runs/{run.pk}/events/").json()
    shown = pm.get(f"/api/runs/{run.pk}/").json()
    assert (
        events[-1]["payload"]
        == event.as_message()["payload"]
        == {
            "message": f"FileNotFoundError: run {run.pk}/checkpoints/mappo/last/state.json",
            "traceback": 'File "training/api.py", line 3, in train\nFileNotFoundError: MASE_MODELS_DIR/qwen',
        }
    )
    assert shown["error"] == events[-1]["payload"]["message"]
    assert server_paths(events) == server_paths(shown) == []
    assert str(settings.DATA_DIR) not in pm.get(f"/api/runs/{run.pk}/report/").content.decode()
    assert RunEvent.objects.get(pk=event.pk).payload == failure  # stored as raised, for the operator
