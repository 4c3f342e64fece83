"""`python manage.py serve`: migrate, create the demo account, start everything, print the URL."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from mase_web.accounts.demo import ensure_demo_data
from mase_web.core import launcher
from mase_web.startup import check_database, check_redis


class Command(BaseCommand):
    help = "Run MASE for development or a demo: embedded services, ASGI server, Celery worker."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))

    def handle(self, *args, host: str, port: int, **options):
        if settings.PRODUCTION:
            raise CommandError(
                "serve is for development and demos; in production run daphne and celery (docker/)"
            )
        check_database()
        call_command("migrate", interactive=False, verbosity=0)
        account = ensure_demo_data()
        if not settings.REDIS.embedded:
            check_redis()

        def announce(url: str) -> None:
            self.stdout.write(self.style.SUCCESS(f"\nMASE is running at {url}"))
            self.stdout.write(f"  sign in as: {account.username} / {account.password}")
            redis_kind = "embedded Redis" if settings.REDIS.embedded else "Redis"
            self.stdout.write(
                f"  database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, {redis_kind}"
            )
            self.stdout.write("  press Ctrl-C to stop\n")

        raise SystemExit(launcher.run(host, port, settings.REDIS, announce))
