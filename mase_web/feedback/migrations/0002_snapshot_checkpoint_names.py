"""Snapshots queued before checkpoints were named relative to their run held the server's absolute path in
``meta.checkpoint``, which the items API and the export showed: name it as new snapshots do (relative to
its run, with ``meta.run``), so old and new items of one checkpoint still compare as the same team."""

from pathlib import PurePath

from django.db import migrations

from mase_web.runs.facade import shown_checkpoint_path


def _renamed(snapshot, run_of):
    """The snapshot with its checkpoint named inside its run, or None when it names no server path."""
    meta = snapshot.get("meta") if isinstance(snapshot, dict) else None
    path = meta.get("checkpoint") if isinstance(meta, dict) else None
    if not isinstance(path, str) or not PurePath(path).is_absolute():
        return None
    run_id = run_of.get(meta.get("deployment"))
    if run_id is None:
        return {**snapshot, "meta": {**meta, "checkpoint": PurePath(path).name}}
    return {**snapshot, "meta": {**meta, "run": run_id, "checkpoint": shown_checkpoint_path(run_id, path)}}


def forwards(apps, schema_editor):
    FeedbackItem = apps.get_model("feedback", "FeedbackItem")
    Deployment = apps.get_model("deployments", "Deployment")
    run_of = dict(Deployment.objects.values_list("pk", "run_id"))
    changed = []
    for item in FeedbackItem.objects.only("pk", "snapshot", "snapshot_b").iterator(chunk_size=500):
        a, b = _renamed(item.snapshot, run_of), _renamed(item.snapshot_b, run_of)
        if a is None and b is None:
            continue
        item.snapshot = a if a is not None else item.snapshot
        item.snapshot_b = b if b is not None else item.snapshot_b
        changed.append(item)
    FeedbackItem.objects.bulk_update(changed, ["snapshot", "snapshot_b"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("feedback", "0001_initial"),
        ("deployments", "0006_episode_out_of_scope"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
