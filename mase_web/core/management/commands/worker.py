"""`python manage.py worker`: check the database and Redis, then run a Celery worker."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from mase_web.startup import check_database, check_redis


class Command(BaseCommand):
    help = "Run a Celery worker for the given queues (cpu, gpu) after checking its services."

    def add_arguments(self, parser):
        parser.add_argument("--queues", "-Q", default="cpu", help="comma-separated: cpu, gpu")
        parser.add_argument("--concurrency", "-c", type=int, default=1)
        parser.add_argument("--loglevel", default="INFO")

    def handle(self, *args, queues: str, concurrency: int, loglevel: str, **options):
        check_database()
        check_redis()
        from mase_web.celery import app

        name = f"{queues.replace(',', '-')}@%h"
        app.worker_main(
            ["worker", "-Q", queues, "-c", str(concurrency), "-n", name, "--loglevel", loglevel, "-O", "fair"]
        )
