"""Recovery of runs the system lost: a worker that stopped renewing its lease, a delivery the broker dropped.

Run at every worker's start-up and periodically (`signals.py`). It sits above both `execution` (the
lease's timeout) and `tasks` (dispatching again), so neither of those needs the other's caller.
"""

from __future__ import annotations

import logging
import time

from django.db.models import Q
from django.utils import timezone

from mase_web.runs.execution import heartbeat_timeout
from mase_web.runs.models import Run
from mase_web.runs.tasks import dispatch, held_task_ids

log = logging.getLogger(__name__)


def recover_orphans() -> list[int]:
    """Requeue runs whose worker stopped renewing its lease; returns their ids."""
    cutoff = timezone.now() - heartbeat_timeout()
    recovered = []
    for run in Run.objects.filter(state=Run.State.RUNNING, heartbeat_at__lt=cutoff):
        # Only one recoverer wins the update, so a run is requeued once.
        if Run.objects.filter(pk=run.pk, state=Run.State.RUNNING, heartbeat_at__lt=cutoff).update(
            state=Run.State.QUEUED
        ):
            log.warning("run %s: worker %s stopped renewing its lease; requeued", run.pk, run.worker)
            # Conditional on the old delivery, like `requeue_lost`: only one new message is sent.
            if dispatch(run, replacing=run.task_id):
                recovered.append(run.pk)
    return recovered


def requeue_lost(settle: float = 0.2) -> list[int]:
    """Dispatch again the queued runs whose delivery the broker no longer holds; returns their ids.

    A run dispatched less than a heartbeat timeout ago is left alone (its message may still be on its
    way). The broker is read twice, `settle` seconds apart, because a worker takes a message off the
    queue a moment before recording it as unacknowledged. `dispatch(replacing=...)` makes one
    recoverer win, and `claim()` still refuses a duplicate delivery of a run that is running.
    """
    cutoff = timezone.now() - heartbeat_timeout()
    stale = Q(dispatched_at__lt=cutoff) | Q(dispatched_at__isnull=True, created_at__lt=cutoff)
    candidates = list(Run.objects.filter(stale, state=Run.State.QUEUED).only("pk", "task_id", "device"))
    if not candidates:
        return []
    held = held_task_ids()
    time.sleep(settle)
    held |= held_task_ids()
    requeued = []
    for run in candidates:
        if run.task_id in held:
            continue
        if dispatch(run, replacing=run.task_id):
            log.warning("run %s: the broker lost its delivery %s; dispatched again", run.pk, run.task_id)
            requeued.append(run.pk)
    return requeued
