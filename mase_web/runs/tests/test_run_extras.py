"""Run tags, the compare summary and config diff, the HTML report, the connected workers' queues, the
checkpoint's episode, and a resume that drops the old final metrics."""

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from mase_web.accounts.models import Role
from mase_web.runs import workers
from mase_web.runs.models import Checkpoint, Run, RunEvent
from mase_web.runs.recorder import checkpoint_episode
from mase_web.runs.tests.conftest import client_for, quick_spec

pytestmark = pytest.mark.django_db


def make_run(project, name="r", **fields) -> Run:
    return Run.objects.create(project=project, name=name, spec=fields.pop("spec", quick_spec()), **fields)


def test_tags_on_launch_edit_filter_and_list(team):
    project, users = team
    pm = client_for(users[Role.PRODUCT_MANAGER])
    body = {
        "project": project.pk,
        "name": "tagged",
        "spec": quick_spec(),
        "tags": [" Baseline ", "lr sweep", "baseline"],
    }
    launched = pm.post("/api/runs/", body, format="json")
    assert launched.status_code == 201, launched.content
    run_id = launched.json()["id"]
    assert launched.json()["tags"] == ["baseline", "lr sweep"]
    make_run(project, name="untagged")

    listed = pm.get("/api/runs/?tag=Baseline").json()
    assert pm.get("/api/runs/?tag=%3Cb%3E").status_code == 400
    assert [r["id"] for r in listed["results"]] == [run_id]
    assert pm.get("/api/runs/tags/").json() == {
        "tags": [{"name": "baseline", "runs": 1}, {"name": "lr sweep", "runs": 1}]
    }

    edited = pm.put(f"/api/runs/{run_id}/tags/", {"tags": ["ablation"]}, format="json")
    assert edited.status_code == 200, edited.content
    assert edited.json()["tags"] == ["ablation"]
    assert pm.get("/api/runs/?tag=baseline").json()["count"] == 0

    assert pm.put(f"/api/runs/{run_id}/tags/", {"tags": ["<script>"]}, format="json").status_code == 400
    assert (
        pm.put(f"/api/runs/{run_id}/tags/", {"tags": [f"t{i}" for i in range(13)]}, format="json").status_code
        == 400
    )
    assert client_for(users[Role.ANNOTATOR]).put(
        f"/api/runs/{run_id}/tags/", {"tags": []}, format="json"
    ).status_code in (403, 404)
    assert (
        client_for(users["stranger"])
        .put(f"/api/runs/{run_id}/tags/", {"tags": []}, format="json")
        .status_code
        == 404
    )
    assert client_for(users["stranger"]).get("/api/runs/tags/").json() == {"tags": []}


def test_operators_watch_runs_but_may_not_tag_them(team):
    """Runs belong to product managers and admins: an operator (who may cancel or resume a run) is refused
    a tag edit with a reason in words, and the tags stay as they were."""
    project, users = team
    run = make_run(project, name="watched")
    refused = client_for(users[Role.OPERATOR]).put(
        f"/api/runs/{run.pk}/tags/", {"tags": ["x"]}, format="json"
    )
    assert refused.status_code == 403, refused.content
    assert "product managers and admins" in refused.json()["detail"]
    assert client_for(users[Role.PRODUCT_MANAGER]).get(f"/api/runs/{run.pk}/").json()["tags"] == []


def test_compare_has_a_summary_and_the_config_diff(team):
    project, users = team
    started = timezone.now() - timedelta(minutes=3)
    other = quick_spec(episodes=999)
    other["training"]["lr"] = 0.5
    other["agents"][0]["role"] = "changed"
    a = make_run(
        project,
        "a",
        state=Run.State.SUCCEEDED,
        started_at=started,
        finished_at=started + timedelta(seconds=90),
        metrics={"success": 0.9, "episodes": 64},
    )
    b = make_run(project, "b", spec=other)
    RunEvent.objects.create(
        run=a, seq=1, type="metrics", payload={"episode": 256, "success": 0.9}, time=timezone.now()
    )
    body = client_for(users[Role.OPERATOR]).get(f"/api/runs/compare/?ids={a.pk},{b.pk}").json()
    first, second = body["runs"]
    assert first["summary"]["final_metrics"] == {"success": 0.9, "episodes": 64}
    assert first["summary"]["wall_seconds"] == pytest.approx(90)
    assert first["summary"]["budget_episodes"] == 256 and first["summary"]["episodes_done"] == 256
    assert second["summary"]["budget_episodes"] == 999 and second["summary"]["wall_seconds"] is None
    diff = {row["path"]: row["values"] for row in body["config_diff"]}
    assert diff["training.episodes"] == [256, 999]
    assert diff["training.lr"][1] == 0.5
    agent = quick_spec()["agents"][0]["id"]
    assert diff[f"agents[{agent}].role"][1] == "changed"
    assert "name" not in diff  # equal settings are left out


def test_report_is_a_standalone_html_file_with_figures(team):
    project, users = team
    run = make_run(
        project, "reported <b>", state=Run.State.SUCCEEDED, metrics={"success": 0.75, "episodes": 64}
    )
    now = timezone.now()
    events = [
        ("metrics", {"episode": 32, "success": 0.2, "reward": 0.1}),
        ("metrics", {"episode": 64, "success": 0.5, "reward": 0.4}),
        ("attention", {"step": 2, "agents": ["a", "b"], "matrix": [[0, 1], [1, 0]]}),
        ("phase", {"from": "exploration", "to": "exploitation", "reason": "success rose"}),
        ("plateau", {"cycles": 3, "recommendation": "raise lr"}),
    ]
    for seq, (kind, payload) in enumerate(events, 1):
        RunEvent.objects.create(run=run, seq=seq, type=kind, payload=payload, time=now)
    Checkpoint.objects.create(run=run, step=64, path="/data/runs/ckpt")
    response = client_for(users[Role.OPERATOR]).get(f"/api/runs/{run.pk}/report/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    assert f'filename="mase-run-{run.pk}-report.html"' in response["Content-Disposition"]
    html = response.content.decode()
    assert html.startswith("<!doctype html>") and "reported &lt;b&gt;" in html
    assert html.count("Plotly.newPlot") == 3  # two curves and the attention heat map
    assert (
        "<script src=" not in html and "plotly.js v" in html and "Measured on 64 evaluation episodes" in html
    )
    assert "1 phase change(s), 1 plateau warning(s)" in html
    assert client_for(users["stranger"]).get(f"/api/runs/{run.pk}/report/").status_code == 404
    assert client_for(users[Role.ANNOTATOR]).get(f"/api/runs/{run.pk}/report/").status_code in (403, 404)


def test_worker_queues_say_when_no_gpu_worker_is_connected(team, monkeypatch):
    project, users = team
    asked = []

    def fake():
        asked.append(1)
        return {"celery@cpu-box": ["cpu"]}

    monkeypatch.setattr(workers, "_ask_workers", fake)
    state = workers.worker_queues(fresh=True)
    assert state["queues"] == {"cpu": ["celery@cpu-box"], "gpu": []} and state["error"] == ""
    body = client_for(users[Role.OPERATOR]).get("/api/runs/workers/").json()
    assert body["queues"]["gpu"] == [] and len(asked) == 1  # the cached answer

    def broken():
        raise ConnectionError("broker down")

    monkeypatch.setattr(workers, "_ask_workers", broken)
    state = workers.worker_queues(fresh=True)
    assert state["queues"] == {"cpu": [], "gpu": []} and "broker down" in state["error"]
    cache.delete(workers.CACHE_KEY)  # later tests ask the real workers


def test_checkpoint_episode_is_the_episode_not_the_update():
    assert checkpoint_episode({"step": 3, "episode": 4800}) == 4800  # REINFORCE
    assert checkpoint_episode({"step": 10, "metrics": {"step": 10, "episode": 320}}) == 320  # MAPPO
    assert checkpoint_episode({"step": 7, "metrics": {}}) == 7
    assert checkpoint_episode({}) == 0


def test_resume_drops_the_old_final_metrics(team):
    project, users = team
    run = make_run(project, state=Run.State.CANCELLED, metrics={"success": 0.5})
    response = client_for(users[Role.OPERATOR]).post(f"/api/runs/{run.pk}/resume/")
    assert response.status_code == 200, response.content
    assert response.json()["metrics"] == {}


def test_a_queued_run_moves_to_the_cpu_queue(team, gpu_queue):
    project, users = team
    run = make_run(project, device=Run.Device.GPU, task_id="old-delivery")
    response = client_for(users[Role.OPERATOR]).post(
        f"/api/runs/{run.pk}/device/", {"device": "cpu"}, format="json"
    )
    assert response.status_code == 200, response.content
    run.refresh_from_db()
    assert run.device == "cpu" and run.task_id != "old-delivery"
    run.state = Run.State.RUNNING
    run.save()
    refused = client_for(users[Role.OPERATOR]).post(
        f"/api/runs/{run.pk}/device/", {"device": "gpu"}, format="json"
    )
    assert refused.status_code == 400
