"""`python manage.py worker`: check the database and Redis, then run a Celery worker."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import BaseCommand

from mase_web.startup import check_database, check_redis


class Command(BaseCommand):
    help = "Run a Celery worker for the given queues (cpu, gpu) after checking its services."

    def add_arguments(self, parser):
        parser.add_argument("--queues", "-Q", default="cpu", help="comma-separated: cpu, gpu")
        parser.add_argument("--concurrency", "-c", type=int, default=1)
        parser.add_argument("--loglevel", default="INFO")
        parser.add_argument(
            "--beat",
            action="store_true",
            help="also run the scheduler (periodic jobs such as scheduled evolution); one per installation",
        )

    def handle(self, *args, queues: str, concurrency: int, loglevel: str, beat: bool, **options):
        check_database()
        check_redis()
        from mase_web.celery import app

        name = f"{queues.replace(',', '-')}@%h"
        argv = ["worker", "-Q", queues, "-c", str(concurrency), "-n", name, "--loglevel", loglevel, "-O", "fair"]
        if beat:
            settings.DATA_DIR.mkdir(parents=True, exist_ok=True)
            argv += ["--beat", "--schedule", str(settings.DATA_DIR / "celerybeat-schedule")]
        app.worker_main(argv)
