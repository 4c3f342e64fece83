"""The web's fixtures: real services, started for real.

- Redis: the URL from settings; the embedded server is started for the session when REDIS_URL is unset.
- `live_services`: a real Celery worker process and a real ASGI server (daphne) on the test database.
- `browser_page`: Debian's Chromium driven by Playwright (required under CI=true, skipped elsewhere
  when Chromium is missing).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from conftest import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    LiveServices,
    _spawn,
    _stop,
    _wait_until,
    database_url_of,
    free_port,
)


@pytest.fixture(scope="session", autouse=True)
def redis_service():
    """The Redis every test talks to (embedded unless REDIS_URL names a server)."""
    from django.conf import settings

    from mase_web.embedded import ensure_embedded_redis

    embedded = ensure_embedded_redis(settings.REDIS)
    yield settings.REDIS
    from mase_web.realtime import publisher as publisher_module

    if publisher_module._publisher is not None:
        publisher_module._publisher.close()
        publisher_module._publisher = None
    if embedded:
        embedded.stop()


# The chat-completions servers the tests start listen on free loopback ports; a server allows no generation
# host unless its operator lists it (MASE_GENERATION_HOSTS), so the tests list these. Tests of the refusals
# narrow it themselves.
LOOPBACK_GENERATION_HOSTS = "127.0.0.1:*"


@pytest.fixture(autouse=True)
def loopback_generation_hosts(settings):
    from serving.generation import Reach

    settings.GENERATION_REACH = Reach.parse([LOOPBACK_GENERATION_HOSTS])


@pytest.fixture(scope="session")
def live_services(django_db_setup, django_db_blocker, redis_service, tmp_path_factory):
    """A real Celery worker and a real daphne server, both on the test database and test Redis."""
    from django.db import connection

    from mase_web.celery import app
    from mase_web.core.launcher import server_command, worker_command

    logs = tmp_path_factory.mktemp("service-logs")
    with django_db_blocker.unblock():
        db_url = database_url_of(connection.settings_dict)
    env = dict(os.environ, DATABASE_URL=db_url, REDIS_URL=redis_service.url, DEBUG="0")
    env["MASE_GENERATION_HOSTS"] = LOOPBACK_GENERATION_HOSTS  # the tests' chat servers (see below)
    env["PGAPPNAME"] = SERVICES_APP_NAME  # libpq tags every connection the services open (see below)
    # Deliveries queued by earlier tests belong to rolled-back rows (SQLite may reuse their ids).
    app.control.purge()
    port = free_port()
    worker = _spawn(worker_command("cpu"), env, logs / "worker.log")
    server = _spawn(server_command("127.0.0.1", port), env, logs / "server.log")
    try:
        _wait_until(lambda: bool(app.control.ping(timeout=0.5)), "celery worker", worker, logs / "worker.log")

        def http_ready() -> bool:
            import urllib.request

            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health/", timeout=2) as r:
                    return r.status == 200
            except OSError:
                return False

        _wait_until(http_ready, "daphne", server, logs / "server.log")
        yield LiveServices(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}", env, worker, server)
    finally:
        _stop(worker)
        _stop(server)
        with django_db_blocker.unblock():
            _end_orphaned_service_connections(connection)


SERVICES_APP_NAME = "mase-live-services"


def _end_orphaned_service_connections(connection) -> None:
    """End PostgreSQL sessions the stopped services left behind (a pool child outliving a killed worker).

    The test's teardown flushes the database; a session of a service still open in a transaction would block
    that flush, and any left over blocks dropping the test database at the end.
    """
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s",
            [SERVICES_APP_NAME],
        )


@pytest.fixture(autouse=True)
def services_quiet_before_flush(request, django_db_blocker):
    """Wait, after a test that used the live services, until their PostgreSQL sessions are idle.

    The test's teardown flushes the database with one TRUNCATE of every table; a service still writing (a
    decision logged after its answer was sent, a socket's goodbye) holds a lock on one table and asks for
    another, and PostgreSQL ends the deadlock by failing the flush. Autouse fixtures set up after the
    database's, so this teardown runs before the flush (and after the page's, which closes the sockets).
    """
    yield
    if "live_services" not in request.fixturenames:
        return
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with django_db_blocker.unblock():
        _wait_for_idle_services(connection)


def _wait_for_idle_services(connection, timeout: float = 30.0) -> None:
    deadline, quiet_polls = time.monotonic() + timeout, 0
    while time.monotonic() < deadline and quiet_polls < 3:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND application_name = %s AND state <> 'idle'",
                [SERVICES_APP_NAME],
            )
            busy = cursor.fetchone()[0]
        quiet_polls = quiet_polls + 1 if busy == 0 else 0
        time.sleep(0.2)


@pytest.fixture(scope="session")
def run_async():
    """Run a coroutine to completion in a fresh thread (Playwright's sync API may own this thread's loop)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    def run(coro):
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, coro).result()

    return run


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests must run under CI=true but {CHROMIUM} is missing")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread; the ORM calls tests make between
    # browser steps are still plain synchronous code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def browser_page(browser, request):
    """A fresh page; a screenshot of it is kept under test-artifacts/ whatever the outcome."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    yield page
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()
