"""`python manage.py web`: check the database and Redis, then serve HTTP and WebSockets (daphne)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from mase_web.startup import check_database, check_redis


def leave_form_parsing_to_django() -> None:
    """Stop Twisted (daphne's HTTP layer) from parsing multipart POST bodies itself.

    Twisted parses every multipart body before the app sees it, only to fill ``request.args`` that daphne
    never reads, and answers a body it cannot parse (an upload with no parts, a boundary it rejects) with a
    bare 400 without a body, so the API's error shape never reaches the client. Django parses forms itself
    and answers such a body with a 400 naming the field.
    """
    from daphne import http_protocol

    if getattr(http_protocol.WebRequest, "leaves_forms_to_django", False):
        return

    class WebRequest(http_protocol.WebRequest):
        leaves_forms_to_django = True

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self._parsePOSTFormSubmission = False  # read by twisted.web.http.Request.requestReceived

    http_protocol.WebRequest = WebRequest  # HTTPFactory.buildProtocol builds requests of this name


class Command(BaseCommand):
    help = "Run the ASGI server (HTTP + WebSockets) after checking its services."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)

    def handle(self, *args, host: str, port: int, **options):
        check_database()
        check_redis()
        from daphne.cli import CommandLineInterface

        leave_form_parsing_to_django()
        CommandLineInterface().run(["-b", host, "-p", str(port), "mase_web.asgi:application"])
