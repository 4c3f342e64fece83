"""`python manage.py serve`: migrate, start everything, print the URL; `--demo` (what `make run` passes)
also creates the demo account and project and prints the account's sign-in.

No account is made without `--demo`: a well-known name and password must never appear on a server
because it was started without thinking about it (the command refuses production as well)."""

from __future__ import annotations

import os

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from mase_web.accounts.facade import DEMO_USERNAME, ensure_demo_data
from mase_web.core import launcher
from mase_web.startup import check_database, check_redis


class Command(BaseCommand):
    help = "Run MASE for development or a demo: embedded services, ASGI server, Celery worker."

    def add_arguments(self, parser):
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument(
            "--demo",
            action="store_true",
            help=f"create the demo account ({DEMO_USERNAME!r}, a superuser with a printed password) and project",
        )

    def handle(self, *args, host: str, port: int, demo: bool, **options):
        if settings.PRODUCTION:
            raise CommandError(
                "serve is for development and demos; in production run daphne and celery (docker/)"
            )
        check_database()
        call_command("migrate", interactive=False, verbosity=0)
        account = ensure_demo_data() if demo else None
        if not settings.REDIS.embedded:
            check_redis()

        def announce(url: str) -> None:
            self.stdout.write(self.style.SUCCESS(f"\nMASE is running at {url}"))
            if account:
                self.stdout.write(f"  sign in as: {account.username} / {account.password}")
            else:
                self.stdout.write(
                    "  no demo account (--demo): create a user with `python manage.py createsuperuser`"
                )
            redis_kind = "embedded Redis" if settings.REDIS.embedded else "Redis"
            self.stdout.write(
                f"  database: {settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}, {redis_kind}"
            )
            self.stdout.write("  press Ctrl-C to stop\n")

        raise SystemExit(launcher.run(host, port, settings.REDIS, announce))
