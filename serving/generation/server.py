"""A small OpenAI-compatible chat-completions server over any backend, with optional fault injection.

    python -m serving.generation.server --backend local --model DIR --port 8001 [--api-key-env VAR]
        [--faults ok,slow,error,empty,garbage,refusal --slow-s 2]

It serves ``POST /v1/chat/completions`` and ``GET /v1/models`` on loopback, so a local causal LM can be put
behind the ``openai_compatible`` backend (or a drill can check what the breaker does when a server
misbehaves). ``--faults`` is a cycle applied to successive completion requests: ``ok`` answers, ``slow``
answers after ``--slow-s`` seconds, ``error`` is an HTTP 500, ``empty`` an empty answer, ``garbage`` a
string of symbols, ``refusal`` a refusal sentence, ``broken`` a body that is not JSON. With
``--api-key-env`` a request must carry that key as its bearer token (else 401). The log line of a request
holds its method, path, status and duration, never a header.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from serving.generation.base import GenerationConfig, GenerationError, Generator

FAULTS = ("ok", "slow", "error", "empty", "garbage", "refusal", "broken")
GARBAGE = "#%&*@!~^$" * 6
REFUSAL_TEXT = "I'm sorry, but I can't help with that."


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, generator: Generator, faults: Sequence[str] = ("ok",), slow_s: float = 2.0,
                 api_key: str | None = None, model_name: str = "local"):  # fmt: skip
        super().__init__(address, _Handler)
        unknown = [f for f in faults if f not in FAULTS]
        if unknown:
            raise ValueError(f"unknown fault {unknown[0]!r}; expected some of {', '.join(FAULTS)}")
        self.generator, self.slow_s, self.api_key, self.model_name = generator, slow_s, api_key, model_name
        self._faults = itertools.cycle(list(faults) or ["ok"])
        self._lock = threading.Lock()
        self.requests = 0

    def next_fault(self) -> str:
        with self._lock:
            self.requests += 1
            return next(self._faults)


class _Handler(BaseHTTPRequestHandler):
    server: ChatServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - the base class's signature
        pass  # one line per request is written by _reply (no headers: they hold the key)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.rstrip("/") == "/v1/models" and self._authorised():
            self._reply(200, {"object": "list", "data": [{"id": self.server.model_name, "object": "model"}]})
        elif self.path.rstrip("/") != "/v1/models":
            self._reply(404, {"error": {"message": "not found", "type": "not_found"}})

    def do_POST(self) -> None:  # noqa: N802
        started = time.perf_counter()
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.rstrip("/") != "/v1/chat/completions":
            return self._reply(404, {"error": {"message": "not found", "type": "not_found"}})
        if not self._authorised():
            return None
        try:
            request = json.loads(body or b"{}")
            messages = list(request["messages"])
            max_tokens = int(request.get("max_tokens") or request.get("max_completion_tokens") or 64)
            stop = request.get("stop") or None
            stop = [stop] if isinstance(stop, str) else stop
        except (ValueError, KeyError, TypeError):
            return self._reply(
                400, {"error": {"message": "expected a chat-completions body", "type": "invalid"}}
            )
        fault = self.server.next_fault()
        if fault == "error":
            return self._reply(500, {"error": {"message": "injected failure", "type": "server_error"}})
        if fault == "broken":
            return self._raw(200, b"<html>not json")
        if fault == "slow":
            time.sleep(self.server.slow_s)
        system = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
        rest = [{"role": str(m.get("role")), "content": str(m.get("content", ""))}
                for m in messages if m.get("role") != "system"]  # fmt: skip
        try:
            answer = self.server.generator.generate(system, rest, max_tokens, stop)
        except GenerationError as exc:
            return self._reply(502, {"error": {"message": str(exc), "type": exc.kind}})
        text = {"empty": "", "garbage": GARBAGE, "refusal": REFUSAL_TEXT}.get(fault, answer.text)
        used = answer.usage
        self._reply(
            200,
            {
                "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(request.get("model") or self.server.model_name),
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ],
                "usage": {**used, "total_tokens": used["prompt_tokens"] + used["completion_tokens"]},
            },
            started,
        )

    def _authorised(self) -> bool:
        expected = self.server.api_key
        if expected and self.headers.get("Authorization") != f"Bearer {expected}":
            self._reply(401, {"error": {"message": "invalid API key", "type": "authentication_error"}})
            return False
        return True

    def _reply(self, status: int, payload: dict, started: float | None = None) -> None:
        self._raw(status, json.dumps(payload).encode(), "application/json", started)

    def _raw(self, status: int, body: bytes, kind: str = "text/html", started: float | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        took = f" {(time.perf_counter() - started) * 1000:.1f} ms" if started else ""
        print(f"{self.command} {self.path} {status}{took}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m serving.generation.server", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--backend", choices=("template", "local"), default="local")
    parser.add_argument("--model", default="", help="local: the causal LM directory")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--api-key-env", default="", help="require the key this environment variable holds")
    parser.add_argument("--faults", default="ok", help=f"comma-separated cycle of: {', '.join(FAULTS)}")
    parser.add_argument("--slow-s", type=float, default=2.0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (local backend)")
    args = parser.parse_args(argv)
    if args.backend == "local":
        import torch

        torch.set_num_threads(max(1, args.threads))
    from serving.generation import make_generator

    generator = make_generator(GenerationConfig(backend=args.backend, model=args.model))
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    server = ChatServer((args.host, args.port), generator, [f.strip() for f in args.faults.split(",") if f.strip()],
                        args.slow_s, key, model_name=os.path.basename(args.model.rstrip("/")) or args.backend)  # fmt: skip
    print(
        f"serving chat completions on http://{args.host}:{server.server_address[1]}/v1",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        generator.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
