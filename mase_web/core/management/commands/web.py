"""`python manage.py web`: check the database and Redis, then serve HTTP and WebSockets (daphne)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from mase_web.startup import check_database, check_redis


class Command(BaseCommand):
    help = "Run the ASGI server (HTTP + WebSockets) after checking its services."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args, host: str, port: int, **options):
        check_database()
        check_redis()
        from daphne.cli import CommandLineInterface

        CommandLineInterface().run(["-b", host, "-p", str(port), "mase_web.asgi:application"])
