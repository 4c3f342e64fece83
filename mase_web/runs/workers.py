"""Which Celery workers are connected and which device queues they consume, asked of the workers
themselves (a broadcast) and cached for a few seconds so pages polling it cost the broker little."""

from __future__ import annotations

import logging
import time

from django.core.cache import cache

from mase_web.runs.models import Run

log = logging.getLogger(__name__)

CACHE_KEY = "runs:worker-queues"
CACHE_SECONDS = 10
REPLY_TIMEOUT = 1.0


def _ask_workers() -> dict[str, list[str]]:
    """{worker name: [queue names]} of the workers that answer within REPLY_TIMEOUT."""
    from mase_web.celery import app

    replies = app.control.inspect(timeout=REPLY_TIMEOUT).active_queues() or {}
    return {worker: sorted(q.get("name", "") for q in queues or []) for worker, queues in replies.items()}


def worker_queues(fresh: bool = False) -> dict:
    """{"queues": {device: [workers]}, "workers": [...], "checked_at": epoch seconds, "error": str}.

    `error` is non-empty when the broker could not be asked; the queues are then empty and unknown.
    """
    if not fresh:
        cached = cache.get(CACHE_KEY)
        if cached is not None:
            return cached
    error = ""
    try:
        workers = _ask_workers()
    except Exception as exc:  # a broker that is down: say so instead of failing the page
        log.warning("could not ask the workers for their queues", exc_info=True)
        workers, error = {}, f"{exc.__class__.__name__}: {exc}"
    queues = {
        device: sorted(w for w, names in workers.items() if device in names) for device in Run.Device.values
    }
    state = {
        "queues": queues,
        "workers": [{"name": name, "queues": names} for name, names in sorted(workers.items())],
        "checked_at": time.time(),
        "error": error,
    }
    cache.set(CACHE_KEY, state, CACHE_SECONDS)
    return state
