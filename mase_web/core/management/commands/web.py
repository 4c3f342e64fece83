"""`python manage.py web`: check the database and Redis, then serve HTTP and WebSockets (daphne).

With ``--processes N`` (default ``MASE_WEB_PROCESSES``: one per CPU under PostgreSQL, one under SQLite)
this process binds the listening socket once and runs N daphne processes on it (``manage.py web --fd``),
each with its own GIL; the kernel hands each new connection to one of them. It supervises them: when one
exits, or on SIGTERM / SIGINT, it stops them all. Everything a request needs across processes is shared
already: the database (a deployment's breaker is read and written under its row lock), and Redis (the
channel layer that carries WebSocket events, the cache that counts sign-in failures).
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

from django.conf import settings
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


def accept_one_connection_per_wakeup() -> None:
    """Make each daphne process accept one connection per wake-up of its event loop (Twisted accepts up
    to 100 at once), so connections arriving together spread over the processes sharing the socket."""
    from twisted.internet import tcp

    if getattr(tcp.Port.doRead, "accepts_one", False):
        return
    do_read = tcp.Port.doRead

    def doRead(self):  # noqa: N802 - Twisted's name
        self.numberAccepts = 1
        return do_read(self)

    doRead.accepts_one = True
    tcp.Port.doRead = doRead


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's socket, bound and listening, inheritable by the daphne processes."""
    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    sock = socket.create_server((host, port), family=family, backlog=1024)
    sock.set_inheritable(True)
    return sock


def run_processes(sock: socket.socket, processes: int, verbosity: int) -> int:
    """Run `processes` daphne processes on `sock` until one exits or we are asked to stop; their status."""
    from mase_web.core.launcher import MANAGE, ProcessGroup
    from mase_web.embedded import _die_with_parent

    fd = sock.fileno()
    command = [sys.executable, MANAGE, "web", "--fd", str(fd), "--verbosity", str(verbosity)]
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    group = ProcessGroup()
    try:
        for i in range(processes):
            group.children[f"server process {i + 1}"] = subprocess.Popen(
                command, pass_fds=(fd,), preexec_fn=_die_with_parent
            )
        sock.close()  # the children hold it now
        while not stopping:
            exited = group.first_exited()
            if exited:
                print(f"web: {exited[0]} exited with status {exited[1]}; stopping", file=sys.stderr)
                return exited[1] if exited[1] > 0 else 1  # killed by a signal: 1
            time.sleep(0.2)
        return 0
    finally:
        group.stop()


class Command(BaseCommand):
    help = "Run the ASGI server (HTTP + WebSockets) after checking its services."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--processes",
            type=int,
            default=None,
            help="server processes sharing the socket (default MASE_WEB_PROCESSES)",
        )
        parser.add_argument("--fd", type=int, default=None, help="internal: serve this listening socket")

    def handle(self, *args, host: str, port: int, processes: int | None, fd: int | None, **options):
        from daphne.cli import CommandLineInterface

        leave_form_parsing_to_django()
        if fd is not None:  # one of the processes of a multi-process server: the parent checked
            accept_one_connection_per_wakeup()
            CommandLineInterface().run(["--fd", str(fd), "mase_web.asgi:application"])
            return
        check_database()
        check_redis()
        processes = settings.MASE_WEB_PROCESSES if processes is None else processes
        if processes <= 1:
            CommandLineInterface().run(["-b", host, "-p", str(port), "mase_web.asgi:application"])
            return
        sock = listening_socket(host, port)
        if sock.family != socket.AF_INET:  # daphne adopts IPv4 sockets only
            sock.close()
            CommandLineInterface().run(["-b", host, "-p", str(port), "mase_web.asgi:application"])
            return
        raise SystemExit(run_processes(sock, processes, options["verbosity"]))
