"""A run of an hcp team launched through the API: the protocol statistics reach the database as events and
the codebook is saved with the run's checkpoint (real Celery worker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mase_web.accounts.models import Role
from mase_web.runs.models import RunEvent
from mase_web.runs.tests.conftest import assert_continuous, quick_spec, wait_for_state
from mase_web.runs.tests.test_execution import launch

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_hcp_run_persists_protocol_metrics_and_checkpoints_the_codebook(live_services, team):
    project, users = team
    spec = quick_spec(episodes=1920, checkpoint_every=960)
    spec["communication"]["protocol"] = "hcp"
    run_id = launch(users[Role.PRODUCT_MANAGER], project, spec)
    run = wait_for_state(run_id, {"succeeded", "failed"})
    assert run.state == "succeeded", run.error
    assert_continuous(run_id)
    reports = [
        e.payload
        for e in RunEvent.objects.filter(run_id=run_id, type="metrics").order_by("seq")
        if "protocol.byte_ratio" in e.payload
    ]
    assert reports, "no metrics event carried the protocol statistics"
    last = reports[-1]
    assert last["protocol.fitted"] == 1 and last["protocol.compressed_messages"] > 0
    assert last["protocol.frame_byte_ratio"] < 0.2 and last["protocol.codebooks"] == 6  # one per sender
    checkpoint = run.checkpoints.order_by("-step").first()
    assert (Path(checkpoint.path) / "protocol.safetensors").is_file()
