"""The "on a schedule" trigger of a deployment's evolution, ticked by Celery beat.

A deployment whose policy declares ``every_s`` evolves when its newest challenger (or, before the first,
the deployment itself) is at least that old.
The schedule never overrides the minimum interval: `evolve` refuses a challenger too soon after the last
one (or while one trains), and the tick then simply waits for the next time. Any other refusal (an empty
evaluation slice) is recorded on the deployment as an ``evolution_skipped`` alert with its reason. A deployment that is stopped,
or whose policy has no schedule, is never touched.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import shared_task
from django.utils import timezone

from mase_web.deployments.evolution import EvolutionRefused, evolve, policy_of
from mase_web.deployments.evolution_eval import record_skipped, watch
from mase_web.deployments.models import Deployment, Generation

log = logging.getLogger(__name__)

TASK_NAME = "deployments.evolve_on_schedule"
# beat ticks every MASE_EVOLUTION_TICK_S (300 s, mase_web/celery.py): a schedule is honoured to within that


def is_due(deployment: Deployment, now: datetime) -> bool:
    every = policy_of(deployment).every_s
    if every <= 0 or deployment.status != Deployment.Status.ACTIVE:
        return False
    # generation 1 is recorded lazily, so the deployed team's age is the deployment's
    last = deployment.generations.filter(number__gt=1).order_by("-created_at").first()
    since = last.created_at if last is not None else deployment.created_at
    return now - since >= timedelta(seconds=every)


def evolve_due(now: datetime | None = None) -> list[Generation]:
    """Launch a challenger for every deployment whose schedule is due; returns the new generations."""
    now = now or timezone.now()
    launched = []
    for deployment in Deployment.objects.filter(status=Deployment.Status.ACTIVE).exclude(evolution={}):
        if not is_due(deployment, now):
            continue
        trigger = f"schedule (every {policy_of(deployment).every_s} s)"
        try:
            generation = evolve(deployment, None, trigger=trigger)
        except (EvolutionRefused, ValueError, LookupError, OSError) as exc:
            log.info("deployment %s: scheduled evolution skipped: %s", deployment.pk, exc)
            record_skipped(deployment, trigger, exc)
            continue
        watch(generation)
        launched.append(generation)
    return launched


@shared_task(name=TASK_NAME)
def evolve_on_schedule() -> list[int]:
    return [g.pk for g in evolve_due()]
