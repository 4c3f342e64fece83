"""Runs API: launching validates the spec, roles decide who may launch/see/control, bad input is a 400."""

import pytest

from mase_web.accounts.models import Role
from mase_web.runs.execution import claim
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.tests.conftest import client_for, quick_spec

pytestmark = pytest.mark.django_db


def launch(user, project, **overrides):
    body = {"project": project.pk if project else None, "name": "try", "spec": quick_spec(), **overrides}
    return client_for(user).post("/api/runs/", body, format="json")


@pytest.mark.parametrize(
    ("who", "status"),
    [
        (Role.PRODUCT_MANAGER, 201),
        (Role.ADMIN, 201),
        (Role.OPERATOR, 403),
        (Role.ANNOTATOR, 403),
        ("stranger", 400),  # another project's id answers as a missing one
        (None, 403),
    ],
)
def test_who_may_launch(team, who, status):
    project, users = team
    response = launch(users.get(who), project)
    assert response.status_code == status, response.content
    assert Run.objects.count() == (1 if status == 201 else 0)


def test_bad_spec_is_a_400_with_paths_and_saves_nothing(team):
    project, users = team
    spec = quick_spec()
    spec["agents"][0]["lora"]["r"] = "four"
    spec["edges"].append({"source": "ghost", "target": "guesser", "kind": "communication"})
    response = launch(users[Role.PRODUCT_MANAGER], project, spec=spec)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert any(path.startswith("spec.$.agents[0].lora.r") for path in errors), errors
    assert any("edges" in path for path in errors), errors
    assert Run.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    [{"spec": "not json object"}, {"spec": [1, 2]}, {"kind": "dance"}, {"device": "tpu"}, {"name": ""}],
)
def test_malformed_launches_are_400s(team, body):
    project, users = team
    assert launch(users[Role.PRODUCT_MANAGER], project, **body).status_code == 400
    assert Run.objects.count() == 0


def make_run(project, **fields) -> Run:
    return Run.objects.create(project=project, name="r", spec=quick_spec(), **fields)


@pytest.mark.parametrize(
    ("who", "visible"),
    [
        (Role.PRODUCT_MANAGER, True),
        (Role.OPERATOR, True),
        (Role.ADMIN, True),
        (Role.ANNOTATOR, False),
        ("stranger", False),
    ],
)
def test_visibility(team, who, visible):
    project, users = team
    run = make_run(project)
    client = client_for(users[who])
    listed = [r["id"] for r in client.get("/api/runs/").json()["results"]]
    assert (run.pk in listed) == visible
    assert client.get(f"/api/runs/{run.pk}/").status_code == (200 if visible else 404)


def test_anonymous_sees_nothing(team):
    project, _ = team
    run = make_run(project)
    assert client_for(None).get("/api/runs/").status_code == 403
    assert client_for(None).get(f"/api/runs/{run.pk}/events/").status_code == 403


def test_cancel_a_queued_run_and_resume_it(team):
    project, users = team
    run = make_run(project)
    operator = client_for(users[Role.OPERATOR])
    assert client_for(users[Role.ANNOTATOR]).post(f"/api/runs/{run.pk}/cancel/").status_code == 404
    response = operator.post(f"/api/runs/{run.pk}/cancel/")
    assert response.status_code == 200 and response.json()["state"] == "cancelled"
    assert ending(run) == [(1, "finished", "cancelled")]  # no trainer ran: the server closed the stream
    assert operator.post(f"/api/runs/{run.pk}/cancel/").status_code == 400  # already ended
    resumed = operator.post(f"/api/runs/{run.pk}/resume/")
    assert resumed.status_code == 200 and resumed.json()["state"] == "queued"
    assert operator.post(f"/api/runs/{run.pk}/resume/").status_code == 400  # queued runs cannot resume
    assert operator.post(f"/api/runs/{run.pk}/cancel/").status_code == 200
    assert ending(run) == [(1, "finished", "cancelled")]  # the stream already ends so: still one end


def ending(run) -> list[tuple[int, str, str | None]]:
    return [
        (e.seq, e.type, e.payload.get("status")) for e in RunEvent.objects.filter(run=run).order_by("seq")
    ]


def test_events_after_and_compare(team):
    project, users = team
    runs = [make_run(project), make_run(project)]
    from django.utils import timezone

    for run in runs:
        RunEvent.objects.bulk_create(
            RunEvent(
                run=run,
                seq=i,
                type="metrics",
                payload={"episode": i * 32, "success": i / 10},
                time=timezone.now(),
            )
            for i in range(1, 6)
        )
    client = client_for(users[Role.PRODUCT_MANAGER])
    events = client.get(f"/api/runs/{runs[0].pk}/events/?after=3").json()
    assert [e["seq"] for e in events] == [4, 5]
    assert client.get(f"/api/runs/{runs[0].pk}/events/?after=-1").status_code == 400
    compared = client.get(f"/api/runs/compare/?ids={runs[0].pk},{runs[1].pk}").json()["runs"]
    assert compared[0]["series"]["success"][-1] == [160, 0.5]
    assert client.get("/api/runs/compare/?ids=1").status_code == 400
    assert client.get("/api/runs/compare/?ids=a,b").status_code == 400


def test_a_run_that_keeps_killing_its_worker_fails(team, settings):
    project, _ = team
    run = make_run(project, deliveries=settings.RUN_MAX_DELIVERIES)
    assert claim(run.pk, "task") is None
    run.refresh_from_db()
    assert run.state == "failed" and "gave up after" in run.error
    assert ending(run) == [(1, "error", None), (2, "finished", "failed")]
    assert RunEvent.objects.get(run=run, type="error").payload["message"] == run.error


def test_a_run_cancelled_before_its_redelivery_ends_its_stream(team):
    from django.utils import timezone

    project, _ = team
    run = make_run(project, state="running", cancel_requested=True)
    RunEvent.objects.create(run=run, seq=1, type="started", payload={}, time=timezone.now())
    assert claim(run.pk, "redelivery") is None
    run.refresh_from_db()
    assert run.state == "cancelled" and ending(run) == [(1, "started", None), (2, "finished", "cancelled")]


def test_a_live_lease_is_not_taken_twice(team):
    project, _ = team
    run = make_run(project)
    assert claim(run.pk, "first") is not None
    assert claim(run.pk, "duplicate delivery") is None
    run.refresh_from_db()
    assert run.deliveries == 1 and run.task_id == "first"


def test_launch_from_a_published_workflow_version(team):
    from mase_web.workflows.models import Workflow, WorkflowVersion

    project, users = team
    workflow = Workflow.objects.create(project=project, name="guessers", spec=quick_spec())
    client = client_for(users[Role.PRODUCT_MANAGER])
    body = {"name": "from workflow", "workflow": workflow.pk}
    unpublished = client.post("/api/runs/", body, format="json")
    assert unpublished.status_code == 400 and "publish" in unpublished.json()["errors"]["workflow"][0]
    WorkflowVersion.objects.create(workflow=workflow, number=1, spec=quick_spec(episodes=64), note="first")
    launched = client.post("/api/runs/", body, format="json")
    assert launched.status_code == 201, launched.content
    run = launched.json()
    assert run["project"] == project.pk and run["spec"]["training"]["episodes"] == 64
    assert run["source"] == {
        "kind": "workflow",
        "workflow": workflow.pk,
        "workflow_name": "guessers",
        "version": 1,
    }
    stranger = client_for(users["stranger"]).post("/api/runs/", body, format="json")
    assert stranger.status_code == 400  # never the spec: the workflow is not among theirs
    assert stranger.json()["errors"]["workflow"] == [f"no workflow {workflow.pk} among those you may read"]
    assert Run.objects.count() == 1


def test_learned_communication_and_workflow_filter(team):
    from django.utils import timezone

    project, users = team
    run = make_run(project, source={"kind": "workflow", "workflow": 7, "version": 1})
    other = make_run(project)
    client = client_for(users[Role.OPERATOR])
    empty = client.get(f"/api/runs/{run.pk}/communication/")  # nothing reported yet: an empty report
    assert empty.status_code == 200 and empty.json()["seq"] is None and empty.json()["agents"] == []
    RunEvent.objects.create(
        run=run, seq=1, type="attention", time=timezone.now(),
        payload={"agents": ["a", "b"], "matrix": [[0, 1], [1, 0]], "graph": {"nodes": [], "edges": []}, "step": 3},
    )  # fmt: skip
    learned = client.get(f"/api/runs/{run.pk}/communication/").json()
    assert learned["agents"] == ["a", "b"] and learned["matrix"][0][1] == 1 and learned["seq"] == 1
    listed = [r["id"] for r in client.get("/api/runs/?workflow=7").json()["results"]]
    assert listed == [run.pk] and other.pk not in listed
    assert client.get("/api/runs/?workflow=x").status_code == 400


def test_a_checkpoint_teacher_must_be_a_run_of_the_same_project(team, settings, tmp_path):
    import json
    from pathlib import Path

    from agents import places
    from mase_web.accounts.models import Project

    project, users = team
    settings.DATA_DIR = tmp_path
    before = places.places()
    places.configure(before.models_dir, before.tickets_dir, tmp_path / "runs", before.datasets_dir)
    mine, theirs = make_run(project), make_run(Project.objects.get(name="elsewhere"))
    untrained = make_run(project)
    for directory in (mine.out_dir, theirs.out_dir):
        best = directory / "checkpoints" / "mappo" / "best"
        best.mkdir(parents=True)
        (best / "state.json").write_text("{}")
        (best / "model.safetensors").write_bytes(b"")
    spec = json.loads(
        (Path(__file__).resolve().parents[3] / "examples" / "customer_service.json").read_text()
    )
    spec["training"] |= {"teacher": "checkpoint"}
    pm = users[Role.PRODUCT_MANAGER]
    try:
        for teacher, says in (
            (str(theirs.pk), f"no run {theirs.pk} in this project"),  # as if it did not exist
            ("987654", "no run 987654 in this project"),
            (str(untrained.pk), f"run {untrained.pk} has no MAPPO checkpoint yet"),
            (str(mine.out_dir), "paths are not accepted"),  # a server path is never a teacher
            ("best-run", "named by its id"),
        ):
            spec["training"]["teacher_checkpoint"] = teacher
            response = launch(pm, project, spec=spec)
            assert response.status_code == 400, response.content
            assert says in response.json()["errors"]["spec.$.training.teacher_checkpoint"][0]
        spec["training"]["teacher_checkpoint"] = str(mine.pk)
        assert launch(pm, project, spec=spec).status_code == 201
    finally:
        places.configure(before.models_dir, before.tickets_dir, before.runs_dir, before.datasets_dir)
    assert Run.objects.count() == 4


def test_checkpoint_paths_are_shown_relative_to_the_run(team):
    """The API, the live stream and the report name a checkpoint inside its run, never by the server's
    absolute path (the deployments keep the full path server-side)."""
    from django.conf import settings
    from django.utils import timezone

    from mase_web.runs.models import Checkpoint

    project, users = team
    run = make_run(project)
    where = str(run.out_dir / "checkpoints" / "mappo" / "best")
    event = RunEvent.objects.create(
        run=run,
        seq=1,
        type="checkpoint",
        payload={"step": 3, "path": where, "metrics": {}},
        time=timezone.now(),
    )
    Checkpoint.objects.create(run=run, step=3, path=where)
    client = client_for(users[Role.PRODUCT_MANAGER])
    events = client.get(f"/api/runs/{run.pk}/events/").json()
    checkpoints = client.get(f"/api/runs/{run.pk}/checkpoints/").json()
    report = client.get(f"/api/runs/{run.pk}/report/").content.decode()
    assert events[0]["payload"]["path"] == checkpoints[0]["path"] == "checkpoints/mappo/best"
    assert event.as_message()["payload"]["path"] == "checkpoints/mappo/best"
    assert "checkpoints/mappo/best" in report
    for body in (str(events), str(checkpoints), report):
        assert str(settings.DATA_DIR) not in body
    assert Checkpoint.objects.get(run=run).path == where  # the server still finds it


def test_a_dataset_beyond_the_catalogue_is_a_400_at_its_parameter(team, tmp_path):
    """A launch that skips the designer (the API) is refused before training when the dataset's rows
    carry intents the spec's catalogue lacks: the field error names them."""
    import json
    from pathlib import Path

    from agents import places

    (tmp_path / "customer_service").mkdir()
    (tmp_path / "customer_service" / "shop.jsonl").write_text(
        json.dumps({"text": "I want to rent a bike for the weekend", "intents": ["rental"]}) + "\n"
    )
    example = Path(__file__).resolve().parents[3] / "examples" / "customer_service.json"
    spec = json.loads(example.read_text())
    spec["environment"]["params"]["tickets"] = "shop"
    saved = places.places()
    places.configure(None, None, None, tmp_path)
    try:
        response = launch(team[1][Role.PRODUCT_MANAGER], team[0], spec=spec)
    finally:
        places.configure(saved.models_dir, saved.tickets_dir, saved.runs_dir, saved.datasets_dir)
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert "rental (1 row)" in " ".join(errors["spec.$.environment.params.tickets"]), errors
    assert Run.objects.count() == 0
