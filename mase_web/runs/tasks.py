"""Celery tasks of the runs app: one delivery of a run, routed to the queue of its device."""

from __future__ import annotations

import json

from celery import shared_task
from django.db import OperationalError

from mase_web.runs.dispatch import EXECUTE_TASK, dispatch  # noqa: F401 - recovery and the API send through it
from mase_web.runs.execution import execute


# A database that is briefly unavailable at claim time changes nothing (the claim is atomic): retry.
@shared_task(
    bind=True,
    name=EXECUTE_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    max_retries=5,
)
def execute_run(self, run_id: int) -> str | None:
    return execute(run_id, self.request.id)


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
