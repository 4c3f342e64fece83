"""Celery tasks of the runs app: one delivery of a run, routed to the queue of its device."""

from __future__ import annotations

import json

from celery import shared_task
from celery.utils import uuid
from django.db import OperationalError
from django.utils import timezone

from mase_web.runs.execution import execute
from mase_web.runs.models import Run


# A database that is briefly unavailable at claim time changes nothing (the claim is atomic): retry.
@shared_task(
    bind=True,
    name="runs.execute",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    max_retries=5,
)
def execute_run(self, run_id: int) -> str | None:
    return execute(run_id, self.request.id)


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
    execute_run.apply_async((run.pk,), queue=run.device, task_id=task_id)
    return task_id


def _task_id(message: dict) -> str | None:
    return (message.get("headers") or {}).get("id")


def held_task_ids() -> set[str]:
    """Ids of the run deliveries the broker holds: waiting in a queue, or taken by a worker and not
    yet acknowledged (tasks are acknowledged late, so a running delivery stays in the unacked hash)."""
    from mase_web.celery import app

    ids: set[str] = set()
    with app.connection_for_read() as conn:
        channel = conn.default_channel
        client = channel.client  # kombu's Redis transport: queues are lists, one per priority step
        for queue in app.conf.task_queues:
            for step in channel.priority_steps:
                for raw in client.lrange(channel._q_for_pri(queue.name, step), 0, -1):
                    ids.add(_task_id(json.loads(raw)))
        for raw in client.hvals(channel.unacked_key):
            ids.add(_task_id(json.loads(raw)[0]))
    ids.discard(None)
    return ids
