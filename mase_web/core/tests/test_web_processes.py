"""`manage.py web --processes 2`: two daphne processes on one socket both serve HTTP, WebSockets on either
get events published through the Redis channel layer, and stopping the parent stops both."""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import signal
import sys

import psutil
import pytest
import websockets
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from conftest import ROOT, _spawn, _stop, _wait_until, database_url_of, free_port
from mase_web.realtime.tasks import notify_user

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _health(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", "/api/health/")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def _owner(children: list[psutil.Process], local_port: int) -> int:
    """The server process holding the accepted end of the client connection from `local_port`."""
    for child in children:
        if any(c.raddr and c.raddr.port == local_port for c in child.net_connections("tcp")):
            return child.pid
    raise AssertionError(f"no server process holds the connection from port {local_port}")


@pytest.fixture
def two_process_server(tmp_path, redis_service):
    port = free_port()
    env = dict(
        os.environ,
        DATABASE_URL=database_url_of(connection.settings_dict),
        REDIS_URL=redis_service.url,
        DEBUG="0",
        MASE_WEB_PROCESSES="1",  # the flag must win over the setting
        LOG_LEVEL="INFO",  # each daphne process logs "Listening on TCP ..."
    )
    log = tmp_path / "web.log"
    command = [sys.executable, str(ROOT / "manage.py"), "web", "--port", str(port), "--processes", "2"]
    server = _spawn(command, env, log)
    try:
        # both daphne processes listening (the socket answers as soon as the first one is)
        _wait_until(
            lambda: log.read_text(errors="replace").count("Listening on TCP") >= 2, "daphne x2", server, log
        )
        _wait_until(lambda: _health(port), "web --processes 2", server, log)
        yield port, server
    finally:
        _stop(server)


def test_two_processes_serve_requests_and_websockets(two_process_server, run_async):
    port, server = two_process_server
    children = psutil.Process(server.pid).children()
    assert len(children) == 2 and all("--fd" in c.cmdline() for c in children)

    # keep-alive connections opened together spread over both processes; each answers its requests
    # (which process accepts a connection is the kernel's choice: rounds of 12 until both hold some)
    owners: set[int] = set()
    for _ in range(5):
        conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=10) for _ in range(12)]
        for conn in conns:
            conn.connect()
        for conn in conns:
            for _ in range(2):
                conn.request("GET", "/api/health/")
                response = conn.getresponse()
                assert response.status == 200, response.read()
                response.read()
            owners.add(_owner(children, conn.sock.getsockname()[1]))
        for conn in conns:
            conn.close()
        if owners == {c.pid for c in children}:
            break
    assert owners == {c.pid for c in children}

    # a signed-in user's WebSockets, wherever they landed, all get the notification published once
    user = get_user_model().objects.create_user("multi", password="pw-for-tests-123")
    client = Client()
    assert client.login(username="multi", password="pw-for-tests-123")
    headers = {"Cookie": f"sessionid={client.cookies['sessionid'].value}", "Origin": "http://127.0.0.1"}

    pids = {c.pid for c in children}

    async def connect() -> websockets.ClientConnection:
        ws = await websockets.connect(f"ws://127.0.0.1:{port}/ws/notifications/", additional_headers=headers)
        assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "hello"
        return ws

    async def listen() -> tuple[set[int], list[dict]]:
        # Which process accepts a connection is the kernel's choice: open them six at a time, together,
        # until both processes hold some (a handful of rounds at most in practice)
        sockets: list = []
        try:
            for _ in range(8):
                sockets += await asyncio.gather(*(connect() for _ in range(6)))
                if {_owner(children, ws.local_address[1]) for ws in sockets} == pids:
                    break
            where = {_owner(children, ws.local_address[1]) for ws in sockets}
            await asyncio.to_thread(notify_user, user.id, {"kind": "ping", "note": "to every tab"})
            received = [json.loads(await asyncio.wait_for(ws.recv(), 30)) for ws in sockets]
            return where, received
        finally:
            for ws in sockets:
                await ws.close()

    where, received = run_async(listen())
    assert where == pids
    assert [m["payload"]["note"] for m in received] == ["to every tab"] * len(received)

    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=30) == 0
    gone, alive = psutil.wait_procs(children, timeout=20)
    assert not alive
