"""`mase submit --follow` and `mase follow` against a live server: a run is streamed to the terminal until
it ends, however it ends (succeeded, cancelled while queued, failed without running)."""

import json
import queue
import subprocess
import sys
import threading
import time

import pytest
from django.utils import timezone
from rest_framework.authtoken.models import Token

from conftest import ROOT
from mase_web.accounts.models import Role
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.tasks import dispatch
from mase_web.runs.tests.conftest import client_for, quick_spec

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def mase(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "training.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_submit_and_follow_a_run(live_services, team, tmp_path):
    project, users = team
    token = Token.objects.create(user=users[Role.PRODUCT_MANAGER]).key
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(quick_spec(episodes=192)))
    env = dict(live_services.env, MASE_SERVER=live_services.base_url, MASE_TOKEN=token)
    result = mase("submit", str(spec_file), "--project", str(project.pk), "--follow", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    run = Run.objects.get()
    assert run.state == "succeeded" and run.created_by == users[Role.PRODUCT_MANAGER]
    assert (
        f"run {run.pk} queued" in result.stdout and "finished" in result.stdout and "started" in result.stdout
    )


def test_submit_explains_refusals(live_services, team, tmp_path):
    project, users = team
    spec = quick_spec()
    spec["agents"][0]["lora"]["r"] = -1
    (tmp_path / "bad.json").write_text(json.dumps(spec))
    annotator = Token.objects.create(user=users[Role.ANNOTATOR]).key
    env = dict(live_services.env, MASE_SERVER=live_services.base_url, MASE_TOKEN=annotator)
    # a role that may not launch hears so before anything about the spec
    forbidden = mase("submit", str(tmp_path / "bad.json"), "--project", str(project.pk), env=env)
    assert forbidden.returncode == 2 and "403" in forbidden.stderr and "lora.r" not in forbidden.stderr
    env["MASE_TOKEN"] = Token.objects.create(user=users[Role.PRODUCT_MANAGER]).key
    refused = mase("submit", str(tmp_path / "bad.json"), "--project", str(project.pk), env=env)
    assert refused.returncode == 2 and "400" in refused.stderr and "lora.r" in refused.stderr
    assert "Traceback" not in refused.stderr
    env["MASE_SERVER"] = "http://127.0.0.1:1"
    unreachable = mase("follow", "1", env=env)
    assert unreachable.returncode == 2 and "cannot reach http://127.0.0.1:1" in unreachable.stderr


class Follower:
    """`mase follow RUN` as a real subprocess, its output collected as it comes."""

    def __init__(self, run_id: int, env: dict):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "training.cli", "follow", str(run_id)],
            cwd=ROOT,
            env=dict(env, COLUMNS="200"),  # rich would wrap long lines at 80 columns in a pipe
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.reader = threading.Thread(target=lambda: [self.lines.put(line) for line in self.proc.stdout])
        self.reader.start()
        self.output = ""

    def wait_for(self, text: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            try:
                self.output += self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"{text!r} not printed in {timeout}s:\n{self.output}") from None

    def ended(self, timeout: float) -> int:
        """The exit code, once the follower stopped by itself within `timeout` seconds."""
        code = self.proc.wait(timeout=timeout)
        self.reader.join(timeout=10)
        while not self.lines.empty():
            self.output += self.lines.get()
        return code

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def follower(live_services, team):
    """Start followers as the team's product manager; none outlives the test."""
    started = []
    token = Token.objects.create(user=team[1][Role.PRODUCT_MANAGER]).key
    env = dict(live_services.env, MASE_SERVER=live_services.base_url, MASE_TOKEN=token)

    def start(run_id: int) -> Follower:
        started.append(Follower(run_id, env))
        started[-1].wait_for(f"following run {run_id}")  # connected: what comes next arrives live
        return started[-1]

    yield start
    for each in started:
        each.stop()


def stream_of(run_id: int) -> list[tuple[str, str | None]]:
    return [(e.type, e.payload.get("status")) for e in RunEvent.objects.filter(run_id=run_id).order_by("seq")]


def test_follow_ends_when_a_queued_run_is_cancelled(team, follower, gpu_queue):
    project, users = team
    body = {"project": project.pk, "name": "waits", "device": "gpu", "spec": quick_spec()}
    run_id = client_for(users[Role.PRODUCT_MANAGER]).post("/api/runs/", body, format="json").json()["id"]
    watching = follower(run_id)
    time.sleep(1)
    assert watching.proc.poll() is None  # a queued run: nothing to stop on yet
    assert client_for(users[Role.OPERATOR]).post(f"/api/runs/{run_id}/cancel/").status_code == 200
    assert watching.ended(timeout=15) == 1
    assert "finished: cancelled" in watching.output and f"run {run_id} cancelled" in watching.output
    assert stream_of(run_id) == [("finished", "cancelled")]


def test_follow_ends_when_a_run_fails_after_too_many_deliveries(team, follower, settings):
    project, _ = team
    run = Run.objects.create(
        project=project, name="crashes", spec=quick_spec(), deliveries=settings.RUN_MAX_DELIVERIES
    )
    watching = follower(run.pk)
    dispatch(run)  # the live worker claims it one delivery too many and gives up
    assert watching.ended(timeout=60) == 1
    assert "error: gave up after" in watching.output and f"run {run.pk} failed" in watching.output
    assert stream_of(run.pk) == [("error", None), ("finished", "failed")]


def test_follow_ends_on_the_runs_state_when_no_event_says_so(team, follower):
    project, _ = team
    run = Run.objects.create(project=project, name="resumed", spec=quick_spec(), state="running")
    now = timezone.now()
    attempts = [("started", {}), ("finished", {"status": "cancelled"}), ("started", {"resumed_from": 64})]
    RunEvent.objects.bulk_create(
        RunEvent(run=run, seq=seq, type=type, payload=payload, time=now)
        for seq, (type, payload) in enumerate(attempts, start=1)
    )
    watching = follower(run.pk)
    watching.wait_for("finished: cancelled")
    time.sleep(2)
    assert watching.proc.poll() is None  # that end was an earlier attempt's: the run runs again
    Run.objects.filter(pk=run.pk).update(state="failed", error="the worker vanished")  # no event at all
    assert watching.ended(timeout=20) == 1
    assert f"run {run.pk} failed: the worker vanished" in watching.output
