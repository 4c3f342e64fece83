"""The embedded Redis starts fast, answers, stops cleanly, and never outlives its parent."""

import os
import signal
import time

import psutil
import redis

from mase_web.core.tests.helpers import clean_env
from mase_web.embedded import EmbeddedRedis


def test_start_ping_stop_leaves_nothing(tmp_path):
    server = EmbeddedRedis(tmp_path / "r.sock")
    server.start()
    pid = server.pid
    client = redis.Redis(unix_socket_path=str(tmp_path / "r.sock"))
    client.set("k", "v")
    assert client.get("k") == b"v"
    server.stop()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert not (tmp_path / "r.sock").exists()


def test_start_reuses_a_running_server(tmp_path):
    with EmbeddedRedis(tmp_path / "r.sock") as first:
        second = EmbeddedRedis(tmp_path / "r.sock").start()
        assert second.pid is None  # nothing new was spawned
        assert first.ping()


def test_server_dies_with_a_killed_parent(tmp_path):
    code = f"""
import sys, time
from mase_web.embedded import EmbeddedRedis
server = EmbeddedRedis({str(tmp_path / "r.sock")!r}).start()
print(server.pid, flush=True)
time.sleep(60)
"""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-c", code], env=clean_env(tmp_path), stdout=subprocess.PIPE, text=True
    )
    redis_pid = int(proc.stdout.readline())
    assert psutil.pid_exists(redis_pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and psutil.pid_exists(redis_pid):
        if psutil.Process(redis_pid).status() == psutil.STATUS_ZOMBIE:
            break
        time.sleep(0.05)
    assert not psutil.pid_exists(redis_pid) or psutil.Process(redis_pid).status() == psutil.STATUS_ZOMBIE
