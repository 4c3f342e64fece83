"""Worker start-up: recover runs orphaned by dead workers or lost by the broker, then keep checking
periodically."""

from __future__ import annotations

import logging
import threading
import time

from celery.signals import worker_ready
from django.conf import settings
from django.db import connection

log = logging.getLogger(__name__)


def _recover_forever() -> None:
    from mase_web.runs.recovery import recover_orphans, requeue_lost

    while True:
        for recover in (recover_orphans, requeue_lost):
            try:
                recover()
            except Exception:  # recovery must never kill the worker; the next round retries
                log.exception("recovering runs failed (%s)", recover.__name__)
            finally:
                connection.close()
        time.sleep(settings.RUN_HEARTBEAT_TIMEOUT / 2)


@worker_ready.connect
def start_recovery(sender=None, **kwargs) -> None:
    threading.Thread(target=_recover_forever, name="run-recovery", daemon=True).start()
