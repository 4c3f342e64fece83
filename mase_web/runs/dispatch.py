"""Queueing a run's delivery on its device's queue, by the task's name: what launches a run (the API, a
deployment's evolution, recovery) needs no import of what executes one on a worker."""

from __future__ import annotations

from celery.utils import uuid
from django.utils import timezone

from mase_web.celery import app
from mase_web.runs.models import Run

EXECUTE_TASK = "runs.execute"  # `tasks.execute_run`


def dispatch(run: Run, replacing: str | None = None) -> str | None:
    """Queue a delivery of `run` on its device's queue; returns the Celery task id.

    The row names the delivery before it is sent, so recovery can look for that message in the broker.
    With `replacing` (the task id of a delivery the broker lost), the run is dispatched only if it is
    still queued under that id: of several recoverers racing, one wins and the others get None.
    """
    task_id = uuid()
    rows = Run.objects.filter(pk=run.pk)
    if replacing is not None:
        rows = rows.filter(state=Run.State.QUEUED, task_id=replacing)
    if not rows.update(task_id=task_id, dispatched_at=timezone.now()):
        return None
    app.send_task(EXECUTE_TASK, (run.pk,), queue=run.device, task_id=task_id)
    return task_id
