"""What every test session shares: paths, process helpers and the CI rule for browser tests.

Nothing here imports Django: the library's tests (tests/) run without it (`make test-fast` runs them
with the Django plugin off). The web's fixtures — Redis, live services, the browser — are in
mase_web/conftest.py; the library's few (a quick benchmark run) are here.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url_of(settings_dict: dict) -> str:
    """A DATABASE_URL that points a child process at the database this test process uses."""
    if settings_dict["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings_dict['NAME']}"
    user = settings_dict.get("USER") or "postgres"
    password = f":{settings_dict['PASSWORD']}" if settings_dict.get("PASSWORD") else ""
    host = settings_dict.get("HOST") or "127.0.0.1"
    port = settings_dict.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings_dict['NAME']}"


@dataclass
class LiveServices:
    base_url: str
    ws_url: str
    env: dict[str, str]
    worker: subprocess.Popen
    server: subprocess.Popen


def _spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    from mase_web.embedded import _die_with_parent

    handle = log.open("wb")
    return subprocess.Popen(
        args, env=env, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent
    )


def _wait_until(check, what: str, proc: subprocess.Popen, log: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        if check():
            return
        time.sleep(0.25)
    raise RuntimeError(f"{what} not ready after {timeout}s:\n{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def pytest_report_header(config):
    return f"python {sys.version.split()[0]}; DATABASE_URL={'set' if os.environ.get('DATABASE_URL') else 'sqlite (default)'}; REDIS_URL={'set' if os.environ.get('REDIS_URL') else 'embedded'}"


_skipped_browser_tests: list[str] = []


def pytest_runtest_logreport(report):
    if report.skipped and "browser" in report.keywords:
        _skipped_browser_tests.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    """Under CI a skipped browser test is a failure: the browser path must really run."""
    if os.environ.get("CI") == "true" and _skipped_browser_tests:
        print(f"\nCI: browser tests were skipped: {_skipped_browser_tests}", file=sys.stderr)
        session.exitstatus = 1


@pytest.fixture
def single_thread():
    """Small networks on a shared machine: one torch thread for the test (restored after)."""
    import torch

    before = torch.get_num_threads()
    yield torch.set_num_threads(1)
    torch.set_num_threads(before)


@pytest.fixture
def run_quick_bench(tmp_path):
    """Run `bench/NAME.py --quick` for real and return the JSON it wrote."""
    import json

    def run(name: str, *extra: str, timeout: float = 280) -> dict:
        out = tmp_path / f"{name}.json"
        proc = subprocess.run(
            [sys.executable, str(ROOT / "bench" / f"{name}.py"), "--quick", "--out", str(out), *extra],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads(out.read_text())

    return run
