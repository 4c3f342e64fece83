"""Celery task: a batch file of tickets run through a deployment, progress streamed after every ticket."""

from __future__ import annotations

import logging

from celery import shared_task
from django.utils import timezone

from mase_web.deployments import live
from mase_web.deployments.evolution_eval import evaluate_generation  # noqa: F401 - the worker registers it
from mase_web.deployments.evolution_schedule import evolve_on_schedule  # noqa: F401 - beat sends it by name
from mase_web.deployments.models import BatchJob, Deployment, Episode
from mase_web.runs.facade import shown_text

log = logging.getLogger(__name__)


def _progress(batch: BatchJob) -> None:
    from mase_web.deployments.serializers import BatchJobSerializer

    live.publish(batch.deployment_id, "batch", batch=BatchJobSerializer(batch).data)


def _stop_if_deployment_stopped(deployment_id: int) -> None:
    """A deployment stopped while its batch runs ends the batch (and frees this worker's runtime of it)."""
    if Deployment.objects.filter(pk=deployment_id, status=Deployment.Status.STOPPED).exists():
        from mase_web.deployments import runtimes  # the team's heavy imports only where tickets run

        runtimes.forget(deployment_id)
        raise RuntimeError(f"deployment {deployment_id} is stopped; the remaining tickets were not run")


@shared_task(name="deployments.run_batch", acks_late=True, reject_on_worker_lost=True)
def run_batch(batch_id: int) -> str:
    """Run every ticket of the batch not yet run (a redelivered batch continues where it stopped)."""
    from mase_web.deployments.inference import TicketRequest, run_ticket

    batch = BatchJob.objects.select_related("deployment").get(pk=batch_id)
    if batch.state == BatchJob.State.SUCCEEDED:
        return batch.state
    done_ids = set(Episode.objects.filter(batch=batch).values_list("task_id", flat=True))
    batch.state, batch.done = BatchJob.State.RUNNING, len(done_ids)
    batch.save(update_fields=["state", "done"])
    _progress(batch)
    try:
        for ticket in batch.tickets:
            if ticket["id"] in done_ids:
                continue
            _stop_if_deployment_stopped(batch.deployment_id)
            intents = tuple(ticket["intents"]) if ticket.get("intents") else None
            request = TicketRequest(text=ticket["text"], task_id=ticket["id"], intents=intents)
            run_ticket(batch.deployment, request, Episode.Source.BATCH, user=batch.created_by, batch=batch)
            batch.done += 1
            BatchJob.objects.filter(pk=batch.pk).update(done=batch.done)
            _progress(batch)
        batch.state = BatchJob.State.SUCCEEDED
    except Exception as exc:  # the batch fails with a reason; the tickets already run stay stored
        log.exception("batch %s failed", batch_id)
        batch.state, batch.error = BatchJob.State.FAILED, shown_text(f"{type(exc).__name__}: {exc}")
    batch.finished_at = timezone.now()
    batch.save(update_fields=["state", "error", "finished_at"])
    _progress(batch)
    return batch.state


def dispatch_batch(batch: BatchJob) -> None:
    run_batch.apply_async((batch.pk,), queue="cpu")
