"""Celery tasks of the runs app: one delivery of a run, routed to the queue of its device."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

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
    from mase_web.runs.execution import execute

    return execute(run_id, self.request.id)


def dispatch(run: Run) -> str:
    """Queue a delivery of `run` on its device's queue; returns the Celery task id."""
    result = execute_run.apply_async((run.pk,), queue=run.device)
    Run.objects.filter(pk=run.pk).update(task_id=result.id)
    return result.id
