"""The schedule trigger of evolution: due only after `every_s`, never closer than the minimum interval,
never for a stopped deployment, and wired to Celery beat by a task name the worker registers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from mase_web.accounts.models import Role
from mase_web.celery import app
from mase_web.deployments.evolution_schedule import TASK_NAME, evolve_due, is_due
from mase_web.deployments.models import Deployment, Generation
from mase_web.deployments.tests.conftest import client_for, make_deployment, team_spec
from mase_web.deployments.tests.test_evolution import give_slice

pytestmark = pytest.mark.django_db


@pytest.fixture
def deployed(team, trained_checkpoint, tiny_backbone_dir):
    project, users = team
    return make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir)), users


def test_beat_sends_a_task_the_worker_registers():
    import mase_web.deployments.tasks  # noqa: F401 - what the worker's autodiscovery imports

    names = [entry["task"] for entry in app.conf.beat_schedule.values()]
    assert TASK_NAME in names and TASK_NAME in app.tasks


def test_a_scheduled_deployment_evolves_when_due_and_not_again_within_its_interval(deployed):
    deployment, _ = deployed
    give_slice(deployment)
    deployment.evolution |= {"every_s": 3600, "min_interval_s": 7200}
    deployment.save(update_fields=["evolution"])
    now = timezone.now()
    assert not is_due(deployment, now)  # deployed just now
    later = now + timedelta(hours=1, seconds=1)
    assert is_due(deployment, later)
    launched = evolve_due(later)
    assert [g.number for g in launched] == [2]
    assert launched[0].data["trigger"] == "schedule (every 3600 s)"
    # an hour after the challenger the schedule is due again, but the minimum interval (two hours) is not over
    # over: nothing is launched, nothing raises
    Generation.objects.filter(pk=launched[0].pk).update(phase=Generation.Phase.READY)
    assert evolve_due(timezone.now() + timedelta(hours=1, seconds=1)) == []
    assert deployment.generations.count() == 2


def test_a_due_deployment_with_an_empty_slice_is_skipped_with_the_reason_recorded(deployed):
    deployment, _ = deployed
    deployment.evolution = {"every_s": 3600}
    deployment.save(update_fields=["evolution"])
    later = timezone.now() + timedelta(hours=1, seconds=1)
    assert evolve_due(later) == [] and evolve_due(later) == []
    [alert] = deployment.alerts.filter(name="evolution_skipped")
    assert alert.detail.startswith(
        "schedule (every 3600 s): evolution skipped: the evaluation slice is empty"
    )
    assert "at least 100 slice tickets" in alert.detail and deployment.generations.count() <= 1


def test_no_schedule_or_a_stopped_deployment_never_evolves(deployed):
    deployment, _ = deployed
    much_later = timezone.now() + timedelta(days=30)
    assert not is_due(deployment, much_later)  # no schedule declared
    deployment.evolution = {"every_s": 3600}
    deployment.status = Deployment.Status.STOPPED
    deployment.save(update_fields=["evolution", "status"])
    assert evolve_due(much_later) == []


def test_the_schedule_is_declared_in_the_policy_at_most_hourly(deployed):
    deployment, users = deployed
    path = f"/api/deployments/{deployment.pk}/evolution/"
    pm = client_for(users[Role.PRODUCT_MANAGER])
    bad = pm.post(path, {"every_s": 60}, format="json")
    assert bad.status_code == 400 and "hourly" in bad.json()["errors"]["every_s"][0]
    ok = pm.post(path, {"every_s": 86400}, format="json")
    assert ok.status_code == 200 and ok.json()["every_s"] == 86400
    assert pm.post(path, {"every_s": 0}, format="json").json()["every_s"] == 0
