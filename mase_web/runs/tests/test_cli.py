"""`mase submit --follow` against a live server: the run is queued, streamed to the terminal, succeeds."""

import json
import subprocess
import sys

import pytest
from rest_framework.authtoken.models import Token

from conftest import ROOT
from mase_web.accounts.models import Role
from mase_web.runs.models import Run
from mase_web.runs.tests.conftest import quick_spec

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
    refused = mase("submit", str(tmp_path / "bad.json"), "--project", str(project.pk), env=env)
    assert refused.returncode == 2 and "400" in refused.stderr and "lora.r" in refused.stderr
    assert "Traceback" not in refused.stderr
    env["MASE_SERVER"] = "http://127.0.0.1:1"
    unreachable = mase("follow", "1", env=env)
    assert unreachable.returncode == 2 and "cannot reach http://127.0.0.1:1" in unreachable.stderr
