"""Deployments API: deploy a trained run, run tickets with decision logs, batch uploads, bad input, roles."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.models import BatchJob, DecisionStep, Deployment, Episode
from mase_web.deployments.tests.conftest import (
    client_for,
    fresh_text,
    make_deployment,
    make_trained_run,
    team_spec,
)
from mase_web.runs.models import Run

pytestmark = pytest.mark.django_db

AGENTS = ["shopping_guide", "logistics", "dispute_mediator", "quality_supervisor"]


@pytest.fixture
def spec(tiny_backbone_dir):
    return team_spec(tiny_backbone_dir)


def deploy(user, run_id, **body):
    return client_for(user).post("/api/deployments/", {"run": run_id, **body}, format="json")


def send(user, deployment_id, text, **body):
    return client_for(user).post(
        f"/api/deployments/{deployment_id}/tickets/", {"text": text, **body}, format="json"
    )


def test_deploy_a_trained_run_then_run_a_ticket_with_its_decision_log(team, trained_checkpoint, spec):
    project, users = team
    run = make_trained_run(project, trained_checkpoint, spec)
    response = deploy(users[Role.PRODUCT_MANAGER], run.pk, name="shop front")
    assert response.status_code == 201, response.content
    body = response.json()
    # the checkpoint is named as the runs API names it, never by the server's path (kept for loading it)
    assert (body["name"], body["run"], body["checkpoint"]) == ("shop front", run.pk, trained_checkpoint.name)
    assert body["breaker"]["state"] == "closed" and body["agents"] == AGENTS
    assert body["fallback"] == "keyword_router" and body["environment"] == "customer_service"
    deployment = Deployment.objects.get(pk=body["id"])
    assert deployment.spec == run.spec and deployment.created_by == users[Role.PRODUCT_MANAGER]
    assert deployment.checkpoint == str(trained_checkpoint)

    text = fresh_text("where is my parcel? it is late")
    answered = send(users[Role.OPERATOR], deployment.pk, text)
    assert answered.status_code == 201, answered.content
    episode, result = answered.json()["episode"], answered.json()["result"]
    assert episode["task_text"] == text and episode["source"] == "api"
    assert episode["status"] in ("completed", "truncated") and isinstance(episode["answer"], list)
    decisions = result["decisions"]
    assert len(decisions) == 4 * result["steps"] > 0
    first = decisions[0]
    assert first["source"] == "model" and first["agent"] in AGENTS and first["breaker_state"] == "closed"
    assert first["reason"]["alternatives"][0]["action"] == first["action"]
    received = [m["weight"] for m in first["messages"]["received"]]  # the spec's links decide who listens
    assert received and sum(received) == pytest.approx(1.0, abs=1e-3) and first["latency_ms"] > 0
    assert first["reward"] is None  # a typed ticket has no ground truth
    # stored: the episode and one row per decision, in the runtime's record format
    stored = Episode.objects.get(pk=episode["id"])
    assert stored.result["sources"]["model"] == result["steps"] and "decisions" not in stored.result
    rows = list(DecisionStep.objects.filter(episode=stored).order_by("step", "id"))
    assert [(r.step, r.agent, r.action, r.source) for r in rows] == [
        (d["step"], d["agent"], d["action"], d["source"]) for d in decisions
    ]
    assert rows[0].confidence == pytest.approx(first["confidence"])
    assert "where is my parcel" in rows[0].search_text

    listed = client_for(users[Role.PRODUCT_MANAGER]).get("/api/deployments/").json()["results"]
    assert [d["id"] for d in listed] == [deployment.pk]


def test_the_runtime_is_built_once_per_deployment_and_reused(team, trained_checkpoint, spec):
    from mase_web.deployments import runtimes

    project, users = team
    deployment = make_deployment(project, trained_checkpoint, spec)
    send(users[Role.ADMIN], deployment.pk, fresh_text())
    first = runtimes.cached_runtime(deployment.pk)
    send(users[Role.ADMIN], deployment.pk, fresh_text())
    assert first is not None and runtimes.cached_runtime(deployment.pk) is first
    assert first.stats["requests"] == 2


@pytest.mark.parametrize(
    ("who", "status"),
    [
        (Role.PRODUCT_MANAGER, 201),
        (Role.ADMIN, 201),
        (Role.OPERATOR, 403),
        (Role.ANNOTATOR, 403),
        ("stranger", 400),  # another project's run is unknown to them
        (None, 403),
    ],
)
def test_who_may_deploy(team, trained_checkpoint, spec, who, status):
    project, users = team
    run = make_trained_run(project, trained_checkpoint, spec)
    response = deploy(users.get(who), run.pk)
    assert response.status_code == status, response.content
    assert Deployment.objects.count() == (1 if status == 201 else 0)


@pytest.mark.parametrize(
    ("who", "sees", "may_send"),
    [
        (Role.PRODUCT_MANAGER, True, True),
        (Role.OPERATOR, True, True),
        (Role.ADMIN, True, True),
        (Role.ANNOTATOR, False, False),
        ("stranger", False, False),
    ],
)
def test_who_sees_deployments_and_sends_tickets(team, trained_checkpoint, spec, who, sees, may_send):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, spec)
    client = client_for(users[who])
    assert [d["id"] for d in client.get("/api/deployments/").json()["results"]] == (
        [deployment.pk] if sees else []
    )
    assert client.get(f"/api/deployments/{deployment.pk}/").status_code == (200 if sees else 404)
    response = send(users[who], deployment.pk, fresh_text())
    assert response.status_code == (201 if may_send else 404), response.content
    assert Episode.objects.count() == (1 if may_send else 0)


def test_deploy_refuses_runs_that_cannot_be_served(team, trained_checkpoint, spec, tiny_backbone_dir):
    project, users = team
    pm = users[Role.PRODUCT_MANAGER]
    no_checkpoint = make_trained_run(project, None, spec)
    response = deploy(pm, no_checkpoint.pk)
    assert response.status_code == 400
    assert "no checkpoint" in response.json()["errors"]["run"][0]
    running = make_trained_run(project, trained_checkpoint, spec, state=Run.State.RUNNING)
    assert "succeeded" in deploy(pm, running.pk).json()["errors"]["run"][0]
    assert "no run 999999" in deploy(pm, 999999).json()["errors"]["run"][0]
    other = make_trained_run(project, trained_checkpoint, spec)
    response = deploy(pm, other.pk, checkpoint=424242)
    assert response.status_code == 400 and "checkpoint" in response.json()["errors"]
    for body in ({}, {"run": "seven"}, {"run": -1}):
        response = client_for(pm).post("/api/deployments/", body, format="json")
        assert response.status_code == 400 and "run" in response.json()["errors"], body
    assert Deployment.objects.count() == 0


def test_bad_tickets_are_400s_and_unknown_deployments_404s(team, trained_checkpoint, spec):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, spec)
    op = users[Role.OPERATOR]
    for text in ("", "   "):
        response = send(op, deployment.pk, text)
        assert response.status_code == 400 and "text" in response.json()["errors"]
    assert (
        client_for(op).post(f"/api/deployments/{deployment.pk}/tickets/", {}, format="json").status_code
        == 400
    )
    assert send(op, deployment.pk, "x" * 4001).status_code == 400
    assert send(op, deployment.pk, "hello", source="carrier pigeon").status_code == 400
    assert send(op, 999999, "where is my parcel?").status_code == 404
    assert Episode.objects.count() == 0


def test_batch_upload_reports_every_bad_line_and_queues_nothing(team, trained_checkpoint, spec):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, spec)
    lines = [
        '{"id": "a", "text": "where is my parcel?"}',
        "{not json",
        '{"id": "b"}',
        '{"id": "c", "text": "refund please", "intents": ["teleport"]}',
        "",
        '{"id": "a", "text": "duplicate id"}',
        '["a", "list"]',
        '{"id": "d", "text": "ok", "colour": "blue"}',
    ]
    response = client_for(users[Role.OPERATOR]).post(
        f"/api/deployments/{deployment.pk}/batches/", {"jsonl": "\n".join(lines)}, format="json"
    )
    assert response.status_code == 400
    errors = response.json()["errors"]["file"]
    assert [e.split(":")[0] for e in errors] == ["line 2", "line 3", "line 4", "line 6", "line 7", "line 8"]
    assert "not valid JSON" in errors[0] and '"text"' in errors[1] and "teleport" in errors[2]
    assert "duplicate" in errors[3] and "unknown field" in errors[5]
    for bad in ({"jsonl": ""}, {"jsonl": "\n\n"}, {}):
        again = client_for(users[Role.OPERATOR]).post(
            f"/api/deployments/{deployment.pk}/batches/", bad, format="json"
        )
        assert again.status_code == 400 and "file" in again.json()["errors"], bad
    assert BatchJob.objects.count() == 0


def test_batch_task_runs_every_ticket_and_records_episodes(team, trained_checkpoint, spec, tmp_path):
    """The Celery task itself, in this process (the live test runs it on a real worker)."""
    from mase_web.deployments.tasks import run_batch

    project, users = team
    deployment = make_deployment(project, trained_checkpoint, spec)
    upload = tmp_path / "tickets.jsonl"
    upload.write_text(
        '{"id": "t-1", "text": "my mug arrived broken, refund please", "intents": ["return_refund", "damaged_item"]}\n'
        '{"id": "t-2", "text": "where is my parcel?"}\n'
    )
    with upload.open("rb") as f:
        response = client_for(users[Role.PRODUCT_MANAGER]).post(
            f"/api/deployments/{deployment.pk}/batches/", {"file": f}, format="multipart"
        )
    assert response.status_code == 202, response.content
    batch = BatchJob.objects.get(pk=response.json()["id"])
    assert batch.total == 2 and batch.tickets[0]["intents"] == ["return_refund", "damaged_item"]
    assert run_batch(batch.pk) == "succeeded"
    batch.refresh_from_db()
    assert (batch.state, batch.done) == ("succeeded", 2) and batch.finished_at is not None
    episodes = {e.task_id: e for e in Episode.objects.filter(batch=batch)}
    assert set(episodes) == {"t-1", "t-2"} and {e.source for e in episodes.values()} == {"batch"}
    assert episodes["t-1"].reward is not None  # known intents: the environment scores the answer
    assert episodes["t-2"].reward is None
    assert DecisionStep.objects.filter(episode__batch=batch).count() > 0
    assert run_batch(batch.pk) == "succeeded" and Episode.objects.filter(batch=batch).count() == 2
    listed = client_for(users[Role.OPERATOR]).get(f"/api/deployments/{deployment.pk}/batches/").json()
    assert [(b["id"], b["done"], b["total"]) for b in listed] == [(batch.pk, 2, 2)]


def test_openapi_schema_documents_the_deployments_api(team):
    _, users = team
    schema = client_for(users[Role.OPERATOR]).get("/api/schema/?format=json").json()
    for path in (
        "/api/deployments/",
        "/api/deployments/{id}/tickets/",
        "/api/deployments/{id}/batches/",
        "/api/deployments/{id}/breaker/",
        "/api/episodes/{id}/",
        "/api/decisions/",
        "/api/decisions/export/",
    ):
        assert path in schema["paths"], path
    parameters = {p["name"] for p in schema["paths"]["/api/decisions/"]["get"]["parameters"]}
    assert {"q", "agent", "confidence_min", "breaker_state", "since"} <= parameters
