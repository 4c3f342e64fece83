"""The launch option "baselines": on by default for a team that has baselines, off on request, a field
error where there are none; a worker then reports the verdict before the run's `finished` (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mase_web.accounts.models import Role
from mase_web.runs.models import RunEvent
from mase_web.runs.tests.conftest import client_for, quick_spec

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def code_spec(**training) -> dict:
    """The shipped code-generation team (it has rules) with a budget small enough for a test."""
    spec = json.loads((EXAMPLES / "code_generation.json").read_text())
    spec["training"].update(episodes=64, eval_every=0, eval_episodes=8, checkpoint_every=0, **training)
    return spec


def launch(team, spec, **extra):
    project, users = team
    body = {"project": project.pk, "name": "verdict", "spec": spec, **extra}
    return client_for(users[Role.PRODUCT_MANAGER]).post("/api/runs/", body, format="json")


@pytest.mark.django_db
def test_a_team_with_rules_gets_its_baselines_by_default_and_may_turn_them_off(team):
    on = launch(team, code_spec())
    assert on.status_code == 201, on.content
    assert on.json()["source"] == {"kind": "spec", "baselines": True}
    off = launch(team, code_spec(), baselines=False)
    assert off.status_code == 201 and off.json()["source"] == {"kind": "spec"}
    explicit = launch(team, code_spec(), baselines=True)
    assert explicit.json()["source"]["baselines"] is True


@pytest.mark.django_db
def test_a_team_without_baselines_launches_without_and_asking_for_them_is_a_field_error(team):
    plain = launch(team, quick_spec())
    assert plain.status_code == 201 and "baselines" not in plain.json()["source"]
    asked = launch(team, quick_spec(), baselines=True)
    assert asked.status_code == 400
    errors = asked.json()["errors"]
    assert list(errors) == ["baselines"] and "ships rules" in errors["baselines"][0]
    evaluation = launch(team, code_spec(), kind="evaluation", baselines=True)
    assert evaluation.status_code == 400 and "baselines" in evaluation.json()["errors"]
    bad = launch(team, code_spec(), baselines="sometimes")
    assert bad.status_code == 400 and "baselines" in bad.json()["errors"]


@pytest.mark.slow  # a real worker trains, clones the rules and plays three arms: ~1 min on the shared machine
@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_worker_reports_the_verdict_before_the_run_finishes(live_services, team):
    from mase_web.runs.tests.conftest import assert_continuous, wait_for_state
    from training.event_payloads import payload_problems

    response = launch(team, code_spec())
    assert response.status_code == 201, response.content
    run = wait_for_state(response.json()["id"], {"succeeded", "failed"}, timeout=420)
    assert run.state == "succeeded", run.error
    assert_continuous(run.pk)
    events = list(RunEvent.objects.filter(run=run).order_by("seq"))
    types = [e.type for e in events]
    assert types[-1] == "finished" and types.count("verdict") == 1
    verdict = events[types.index("verdict")].payload
    assert payload_problems("verdict", verdict) == []
    assert {a["name"] for a in verdict["arms"]} == {"rules", "imitation", "mappo"}
    assert all(a["episodes"] == 8 for a in verdict["arms"]) and verdict["sentence"]
    stages = {e.payload["phase"] for e in events if e.type == "progress"}
    assert "baselines" in stages
    # the run's own stream is served to the page as it is stored
    served = client_for(team[1][Role.OPERATOR]).get(f"/api/runs/{run.pk}/events/?after=0").json()
    assert any(e["type"] == "verdict" for e in served)


@pytest.mark.django_db
def test_the_run_report_carries_the_verdict(team):
    from django.utils import timezone

    from mase_web.runs.models import Run

    project, users = team
    run = Run.objects.create(project=project, name="judged", spec=code_spec(), state=Run.State.SUCCEEDED)
    sentence = "MAPPO is no better than the best rules within noise (1 point, CI −3 to 5): rules are enough"
    arms = [
        {"name": "rules", "mean": 0.64, "low": 0.57, "high": 0.71, "episodes": 8, "cost": 9.9},
        {"name": "mappo", "mean": 0.65, "low": 0.58, "high": 0.72, "episodes": 8, "cost": 4.0},
    ]
    payload = {"learned": "mappo", "baseline": "rules", "difference": 0.01, "low": -0.03, "high": 0.05}
    payload |= {"outcome": "no_better", "sentence": sentence, "arms": arms}
    reader = client_for(users[Role.OPERATOR])
    before = reader.get(f"/api/runs/{run.pk}/report/").content.decode()
    assert "did not evaluate its baselines" in before
    RunEvent.objects.create(run=run, seq=1, type="verdict", payload=payload, time=timezone.now())
    html = reader.get(f"/api/runs/{run.pk}/report/").content.decode()
    assert "Did MARL pay?" in html and "rules are enough" in html
    assert "0.57 – 0.71" in html and "0.58 – 0.72" in html
