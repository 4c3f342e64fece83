"""The Celery application: queues per device class (`cpu`, `gpu`), late acks, one task at a time."""

from __future__ import annotations

import os

from celery import Celery
from kombu import Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")

app = Celery("mase")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_queues=[Queue("cpu"), Queue("gpu")],
    task_default_queue="cpu",
    # A task is acknowledged only after it finished, so a killed worker's task is redelivered...
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    # ...and a worker holds no more than the one task it runs.
    worker_prefetch_multiplier=1,
    task_track_started=True,
    result_expires=24 * 3600,
    broker_connection_retry_on_startup=True,
    worker_hijack_root_logger=False,
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
)
# Periodic jobs, run by the one worker started with `manage.py worker --beat` (`make run` starts it so).
app.conf.beat_schedule = {
    "evolve deployments on their schedule": {
        "task": "deployments.evolve_on_schedule",  # mase_web.deployments.evolution_schedule
        "schedule": float(os.environ.get("MASE_EVOLUTION_TICK_S", "300")),
        "options": {"queue": "cpu", "expires": 240},
    },
    "publish agreed intent labels left pending": {
        "task": "feedback.publish_stale_labels",  # mase_web.feedback.label_publishing
        "schedule": float(os.environ.get("MASE_LABELS_TICK_S", "300")),
        "options": {"queue": "cpu", "expires": 240},
    },
}
app.autodiscover_tasks()
