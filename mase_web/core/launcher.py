"""Run the whole product in one process tree: embedded Redis, the ASGI server and a Celery worker.

Children are started with PR_SET_PDEATHSIG so they die with the launcher, and the launcher stops
everything if any child exits: no orphan servers or workers are left behind.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from mase_web.embedded import EmbeddedRedis, _die_with_parent, child_env


def worker_queues() -> str:
    """CPU jobs always; GPU jobs only where a CUDA device exists."""
    import torch

    return "cpu,gpu" if torch.cuda.is_available() else "cpu"


MANAGE = str(Path(__file__).resolve().parents[2] / "manage.py")


def server_command(host: str, port: int) -> list[str]:
    return [sys.executable, MANAGE, "web", "--host", host, "--port", str(port)]


def worker_command(queues: str, concurrency: int = 1, beat: bool = False) -> list[str]:
    command = [sys.executable, MANAGE, "worker", "--queues", queues, "--concurrency", str(concurrency)]
    return command + ["--beat"] if beat else command


@dataclass
class ProcessGroup:
    """Child processes that live and die together."""

    children: dict[str, subprocess.Popen] = field(default_factory=dict)

    def spawn(self, name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen:
        self.children[name] = subprocess.Popen(args, env=env, preexec_fn=_die_with_parent)
        return self.children[name]

    def first_exited(self) -> tuple[str, int] | None:
        for name, proc in self.children.items():
            if proc.poll() is not None:
                return name, proc.returncode
        return None

    def stop(self, timeout: float = 10.0) -> None:
        for proc in self.children.values():
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + timeout
        for proc in self.children.values():
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def wait_for_http(url: str, group: ProcessGroup, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        exited = group.first_exited()
        if exited:
            raise RuntimeError(f"{exited[0]} exited with status {exited[1]} during start-up")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"the web server did not answer at {url} within {timeout:.0f}s")


def service_env(redis_url: str) -> dict[str, str]:
    """The environment of the web server and the worker: this one, plus the Redis they share.

    DEBUG stays as the environment sets it (off unless asked for): debug pages list every URL and setting.
    """
    return child_env(REDIS_URL=redis_url)


def run(host: str, port: int, redis_target, announce) -> int:
    """Start everything, announce the URL, supervise until Ctrl-C/SIGTERM or a child dies."""
    embedded = EmbeddedRedis(redis_target.socket_path).start() if redis_target.embedded else None
    env = service_env(redis_target.url)
    group = ProcessGroup()
    stopping = False

    def request_stop(signum, frame):
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    try:
        group.spawn("web server", server_command(host, port), env)
        group.spawn("celery worker", worker_command(worker_queues(), beat=True), env)  # the one scheduler
        wait_for_http(f"http://{host}:{port}/api/health/", group)
        announce(f"http://{host}:{port}/")
        while not stopping:
            exited = group.first_exited()
            if exited:
                print(f"mase: {exited[0]} exited with status {exited[1]}; stopping", file=sys.stderr)
                return 1
            time.sleep(0.5)
        return 0
    finally:
        group.stop()
        if embedded:
            embedded.stop()
