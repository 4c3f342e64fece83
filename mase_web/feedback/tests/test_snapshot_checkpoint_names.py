"""Items queued before checkpoints were named inside their run: the migration renames their server paths."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from mase_web.feedback.models import FeedbackItem
from mase_web.feedback.tests.conftest import make_queue, snapshot

renaming = importlib.import_module("mase_web.feedback.migrations.0002_snapshot_checkpoint_names")


@pytest.mark.django_db
def test_stored_snapshots_name_their_checkpoint_inside_its_run(people):
    from mase_web.deployments.models import Deployment
    from mase_web.runs.models import Run
    from mase_web.runs.tests.conftest import quick_spec

    project, users = people
    run = Run.objects.create(project=project, name="trained", spec=quick_spec(), state=Run.State.SUCCEEDED)
    where = str(run.out_dir / "checkpoints" / "mappo" / "best")
    deployment = Deployment.objects.create(project=project, name="cs", run=run, checkpoint=where, spec={})
    queue = make_queue(users["pm"], project, kind="pairwise", overlap=1, tags=[])
    old = {**snapshot("refund please"), "meta": {"deployment": deployment.pk, "checkpoint": where}}
    gone = {**snapshot("refund please"), "meta": {"deployment": 999999, "checkpoint": "/srv/other/last"}}
    new = {**snapshot("hello"), "meta": {"deployment": deployment.pk, "run": run.pk, "checkpoint": "x"}}
    pair = FeedbackItem.objects.create(
        queue_id=queue["id"], kind="pair", episode_key="a", snapshot=old, episode_key_b="b", snapshot_b=gone
    )
    single = FeedbackItem.objects.create(queue_id=queue["id"], kind="episode", episode_key="c", snapshot=new)

    renaming.forwards(apps, None)

    pair.refresh_from_db()
    single.refresh_from_db()
    assert pair.snapshot["meta"] == {
        "deployment": deployment.pk,
        "run": run.pk,
        "checkpoint": "checkpoints/mappo/best",
    }
    assert pair.snapshot_b["meta"] == {"deployment": 999999, "checkpoint": "last"}  # its deployment is gone
    assert pair.snapshot["task"] == old["task"] and single.snapshot == new  # nothing else changes
