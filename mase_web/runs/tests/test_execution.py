"""Runs on real Celery worker processes: success, cancel, kill -9 of the worker mid-run, and kill -9 of
the whole `manage.py serve` tree (embedded Redis and its queue included) with a run queued."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import urllib.request

import pytest
from rest_framework.authtoken.models import Token

from conftest import ROOT, _spawn, _stop, _wait_until, database_url_of, free_port
from mase_web.accounts.models import Role
from mase_web.celery import app
from mase_web.core.launcher import worker_command
from mase_web.core.tests.helpers import clean_env
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.tests.conftest import (
    assert_continuous,
    client_for,
    quick_spec,
    wait_for_event,
    wait_for_state,
)

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def launch(user, project, spec, device="cpu") -> int:
    response = client_for(user).post(
        "/api/runs/", {"project": project.pk, "name": "test", "device": device, "spec": spec}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()["id"]


def test_launch_streams_events_and_succeeds(live_services, team):
    project, users = team
    run_id = launch(users[Role.PRODUCT_MANAGER], project, quick_spec(episodes=320, checkpoint_every=160))
    run = wait_for_state(run_id, {"succeeded", "failed"})
    assert run.state == "succeeded", run.error
    assert run.worker and run.deliveries == 1 and run.started_at <= run.finished_at
    seqs = assert_continuous(run_id)
    types = list(RunEvent.objects.filter(run_id=run_id).order_by("seq").values_list("type", flat=True))
    assert types[0] == "started" and types[-1] == "finished" and len(seqs) > 5
    attention = RunEvent.objects.filter(run_id=run_id, type="attention").last()
    assert attention.payload["graph"]["nodes"], "attention events carry the networkx layout"
    assert run.checkpoints.count() >= 2
    assert "success" in run.metrics
    # every stage said how far it was: the stored stream ends each one with its whole budget done
    progress = RunEvent.objects.filter(run_id=run_id, type="progress").order_by("seq")
    ends = {e.payload["phase"]: e.payload for e in progress if e.payload["state"] != "running"}
    assert {"training", "evaluation"} <= set(ends), ends
    assert (
        ends["training"]["done"] == ends["training"]["total"] == 320 and ends["training"]["state"] == "done"
    )


def test_cancel_stops_a_running_run(live_services, team):
    project, users = team
    run_id = launch(users[Role.PRODUCT_MANAGER], project, quick_spec(episodes=2_000_000))
    wait_for_event(run_id, "metrics")
    response = client_for(users[Role.OPERATOR]).post(f"/api/runs/{run_id}/cancel/")
    assert response.status_code == 200
    run = wait_for_state(run_id, {"cancelled", "failed", "succeeded"}, timeout=60)
    assert run.state == "cancelled", run.error
    last = RunEvent.objects.filter(run_id=run_id).order_by("-seq").first()
    assert last.type == "finished" and last.payload["status"] == "cancelled"
    assert_continuous(run_id)


def gpu_worker(tmp_path, env, name: str) -> subprocess.Popen:
    """A private worker on the `gpu` queue (the session's worker serves only `cpu`)."""
    log = tmp_path / f"{name}.log"
    proc = _spawn(worker_command("gpu"), dict(env, RUN_HEARTBEAT_TIMEOUT="4"), log)
    _wait_until(
        lambda: any("gpu@" in host for reply in (app.control.ping(timeout=0.5) or []) for host in reply),
        name,
        proc,
        log,
    )
    return proc


def test_killed_worker_resumes_from_checkpoint_with_continuous_events(live_services, team, tmp_path):
    project, users = team
    spec = quick_spec(episodes=6400, checkpoint_every=640)
    first = gpu_worker(tmp_path, live_services.env, "first-worker")
    try:
        run_id = launch(users[Role.PRODUCT_MANAGER], project, spec, device="gpu")
        wait_for_event(run_id, "checkpoint")
        for child in _descendants(first.pid):
            os.kill(child, signal.SIGKILL)
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
        killed_at = RunEvent.objects.filter(run_id=run_id).count()
        assert Run.objects.get(pk=run_id).state == "running"  # nobody knows yet
    finally:
        _stop(first)
    second = gpu_worker(tmp_path, live_services.env, "second-worker")
    try:
        run = wait_for_state(run_id, {"succeeded", "failed"}, timeout=240)
    finally:
        _stop(second)
    assert run.state == "succeeded", run.error
    assert run.deliveries == 2
    assert_continuous(run_id)
    starts = RunEvent.objects.filter(run_id=run_id, type="started").order_by("seq")
    assert starts.count() == 2 and starts[1].payload["resumed_from"] is not None
    assert starts[1].seq == killed_at + 1  # the second delivery continued the numbering


def _descendants(pid: int) -> list[int]:
    import psutil

    return [p.pid for p in psutil.Process(pid).children(recursive=True)]


def serve(env: dict, log) -> tuple[subprocess.Popen, str]:
    """`manage.py serve` on a free port, once its web server answers; returns it and its URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    proc = _spawn([sys.executable, str(ROOT / "manage.py"), "serve", "--port", str(port)], env, log)

    def answers() -> bool:
        try:
            with urllib.request.urlopen(f"{url}/api/health/", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    _wait_until(answers, "manage.py serve", proc, log, timeout=120)
    return proc, url


@pytest.mark.slow
@pytest.mark.timeout(600)  # two start-ups of the whole product and two trainings on a shared machine
def test_killing_the_whole_serve_tree_loses_neither_the_running_nor_the_queued_run(team, tmp_path):
    """The database says what must run: after a restart the running run resumes (stale lease) and the
    queued one, whose message died with the embedded Redis, is dispatched again."""
    from django.db import connection

    from training.remote import Server

    project, users = team
    env = clean_env(
        tmp_path / "data", DATABASE_URL=database_url_of(connection.settings_dict), RUN_HEARTBEAT_TIMEOUT="4"
    )  # its own embedded Redis under tmp_path; a short lease so recovery comes soon after the restart
    first, url = serve(env, tmp_path / "first-serve.log")
    try:
        api = Server(url, Token.objects.create(user=users[Role.PRODUCT_MANAGER]).key)

        def launch_there(name: str, spec: dict) -> int:
            return api.request("POST", "runs/", {"project": project.pk, "name": name, "spec": spec})["id"]

        # Long enough that it cannot end between its first checkpoint and the kill, even when the first
        # checkpoint's event is seen late on a loaded machine (1,280 episodes once did).
        running = launch_there("long", quick_spec(episodes=3200, checkpoint_every=320))
        wait_for_event(running, "started")
        queued = launch_there("behind it", quick_spec(episodes=192))  # one worker process: it waits
        wait_for_event(running, "checkpoint")
        tree = [*_descendants(first.pid), first.pid]
        assert any("redis-server" in " ".join(_cmdline(pid)) for pid in tree)
        for pid in tree:  # everything at once, the embedded Redis (and the queue in it) included
            with contextlib.suppress(ProcessLookupError):  # a child may die with its parent first
                os.kill(pid, signal.SIGKILL)
        first.wait()
    finally:
        _stop(first)
    assert Run.objects.get(pk=queued).state == "queued" and Run.objects.get(pk=running).state == "running"

    second, _ = serve(env, tmp_path / "second-serve.log")
    try:
        ended = {pk: wait_for_state(pk, {"succeeded", "failed"}, timeout=240) for pk in (running, queued)}
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{(tmp_path / 'second-serve.log').read_text()[-4000:]}") from None
    finally:
        _stop(second)
    assert ended[running].state == "succeeded" and ended[queued].state == "succeeded"
    assert ended[running].deliveries == 2 and ended[queued].deliveries == 1  # each ran once after the restart
    for pk in (running, queued):
        assert_continuous(pk)
        assert RunEvent.objects.filter(run_id=pk, type="finished").count() == 1


def _cmdline(pid: int) -> list[str]:
    import psutil

    try:
        return psutil.Process(pid).cmdline()
    except psutil.NoSuchProcess:
        return []
