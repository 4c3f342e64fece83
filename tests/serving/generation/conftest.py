"""Fixtures of the generation tests: the tiny local LM, chat-completions servers started as real processes on
loopback (`python -m serving.generation.server`), optionally injecting faults, and `recording_server`, an
HTTP server in a thread that records every request it receives (or sends it elsewhere with a redirect)."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

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


COMPLETION = {
    "id": "c-1", "object": "chat.completion", "created": 0, "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Your parcel is on its way."},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 6, "total_tokens": 9},
}  # fmt: skip


@contextmanager
def recording_server(redirect_to: str = "") -> Iterator[tuple[str, list[dict[str, str]]]]:
    """An HTTP server on a free loopback port, in a thread; yields its base URL (…/v1) and the requests it
    received (``{"path", "authorization"}`` each). It answers every POST with a chat completion (streamed when
    asked), or, given ``redirect_to``, with a 302 to that URL followed by the request's path."""
    seen: list[dict[str, str]] = []

    class Recorder(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the name http.server dispatches to)
            asked = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            seen.append({"path": self.path, "authorization": self.headers.get("Authorization") or ""})
            body, kind = json.dumps(COMPLETION).encode(), "application/json"
            if redirect_to:
                body = b""
            elif asked.get("stream"):
                message = COMPLETION["choices"][0]["message"]
                chunks = [{**COMPLETION, "object": "chat.completion.chunk", "usage": None,
                           "choices": [{"index": 0, "delta": message, "finish_reason": "stop"}]},
                          {**COMPLETION, "object": "chat.completion.chunk", "choices": []}]  # fmt: skip
                body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode() + b"data: [DONE]\n\n"
                kind = "text/event-stream"
            self.send_response(302 if redirect_to else 200)
            if redirect_to:
                self.send_header("Location", redirect_to.rstrip("/") + self.path.removeprefix("/v1"))
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):  # quiet: the test reads `seen`
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
