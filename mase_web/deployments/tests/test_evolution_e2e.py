"""The whole loop once, on the tiny team: corrected traffic → Evolve → the challenger run trains (executed
here as a worker would) → the lineage read settles it → both teams answer the slice through serving
runtimes → the comparison and the reason are stored, and the champion keeps serving unless it is beaten."""

from __future__ import annotations

import shutil
import time

import pytest
from django.test import TestCase

from mase_web.accounts.models import Role
from mase_web.deployments.models import Deployment, Generation
from mase_web.deployments.tests.conftest import client_for, make_deployment, team_spec
from mase_web.deployments.tests.test_evolution import corrected_traffic, give_slice
from mase_web.runs.facade import Run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]  # the run's recorder has its own thread


def run_to_the_end(run: Run) -> str | None:
    """The run executed here as a worker would. Evolve queued its delivery, and a live worker left running
    by an earlier test of the session may take it first (execute then returns None): wait for its end."""
    from mase_web.runs.execution import execute

    state = execute(run.pk, run.task_id)
    deadline = time.monotonic() + 600
    while state is None and time.monotonic() < deadline:
        time.sleep(1)
        run.refresh_from_db()
        state = run.state if run.is_terminal else None
    return state


def test_evolve_trains_a_challenger_and_judges_it_on_the_slice(
    team, trained_checkpoint, tiny_backbone_dir, settings
):
    settings.MASE_EVALUATE_INLINE = True
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    deployment.evolution = {"slice_every": 2, "min_tickets": 4, "min_intent_tickets": 100}
    deployment.save(update_fields=["evolution"])
    corrected_traffic(deployment, 16)
    pm = client_for(users[Role.PRODUCT_MANAGER])
    started = pm.post(f"/api/deployments/{deployment.pk}/evolve/")
    assert started.status_code == 202, started.content
    generation = Generation.objects.get(deployment=deployment, number=2)
    assert generation.data["rows_total"] == 0  # the corrections are rows only once they land in the dataset
    run = Run.objects.get(pk=generation.run_id)
    assert run_to_the_end(run) == Run.State.SUCCEEDED, Run.objects.get(pk=run.pk).error
    with TestCase.captureOnCommitCallbacks(execute=True):
        pm.get(f"/api/deployments/{deployment.pk}/generations/")
    generation.refresh_from_db()
    assert generation.phase == "ready", generation.reason
    slice_size = generation.comparison["tickets"]
    assert 4 <= slice_size < 16
    assert generation.reason
    deployment = Deployment.objects.get(pk=deployment.pk)
    served = deployment.run_id == run.pk
    assert served == (generation.status == "champion")


def test_a_challenger_is_taught_by_the_champions_checkpoint_when_its_run_holds_one(
    team, trained_checkpoint, tiny_backbone_dir
):

    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    shutil.copytree(
        trained_checkpoint, Run.objects.get(pk=deployment.run_id).out_dir / "checkpoints/mappo/last"
    )
    give_slice(deployment)  # Evolve refuses an empty evaluation slice
    started = client_for(users[Role.ADMIN]).post(f"/api/deployments/{deployment.pk}/evolve/")
    assert started.status_code == 202, started.content
    assert started.json()["data"]["start"].startswith("taught by generation 1's checkpoint")
    generation = Generation.objects.get(deployment=deployment, number=2)
    assert (generation.spec["training"]["teacher"], generation.spec["training"]["teacher_checkpoint"]) == (
        "checkpoint", str(deployment.run_id),
    )  # fmt: skip
    run = Run.objects.get(pk=generation.run_id)
    assert run_to_the_end(run) == Run.State.SUCCEEDED, Run.objects.get(pk=run.pk).error
