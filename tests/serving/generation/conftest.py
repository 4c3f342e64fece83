"""Fixtures of the generation tests: the tiny local LM, and chat-completions servers started as real
processes on loopback (`python -m serving.generation.server`), optionally injecting faults."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import free_port

ROOT = Path(__file__).resolve().parents[3]
KEY_ENV = "MASE_TEST_LLM_KEY"
SECRET = "sk-mase-test-7f3a9c1e5b2d4f6a8c0e"  # what the tests grep for


@pytest.fixture(scope="session")
def tiny_lm_dir(tmp_path_factory) -> Path:
    import torch

    from tests.serving.generation.tiny_chat_lm import build_chat_lm

    torch.set_num_threads(1)
    return build_chat_lm(tmp_path_factory.mktemp("tiny_chat_lm"))


@contextmanager
def chat_server(
    log: Path,
    model_dir: Path | None = None,
    faults: str = "ok",
    slow_s: float = 2.0,
    key: str | None = SECRET,
    fault_match: str = "",
) -> Iterator[str]:
    """A chat-completions server process on a free loopback port; yields its base URL (…/v1)."""
    port = free_port()
    args = [sys.executable, "-m", "serving.generation.server", "--port", str(port), "--faults", faults]
    args += ["--slow-s", str(slow_s)] + (["--fault-match", fault_match] if fault_match else [])
    args += ["--backend", "local", "--model", str(model_dir)] if model_dir else ["--backend", "template"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if key:
        env[KEY_ENV] = key
        args += ["--api-key-env", KEY_ENV]
    handle = log.open("ab")
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"chat server exited:\n{log.read_text()[-2000:]}")
            if "serving chat completions" in log.read_text():
                break
            time.sleep(0.1)
        else:
            raise RuntimeError(f"chat server not ready:\n{log.read_text()[-2000:]}")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/v1/models", headers={"Authorization": f"Bearer {key}"} if key else {})
        assert conn.getresponse().status == 200
        conn.close()
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        handle.close()
