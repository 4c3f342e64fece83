"""A small OpenAI-compatible chat-completions server over any backend, with optional fault injection.

    python -m serving.generation.server --backend local --model DIR --port 8001 [--api-key-env VAR]
        [--faults ok,slow,error,empty,garbage,refusal --slow-s 2] [--fault-match TEXT]

It serves ``POST /v1/chat/completions`` and ``GET /v1/models`` on loopback, so a local causal LM can be put
behind the ``openai_compatible`` backend (or a drill can check what the breaker does when a server
misbehaves). ``--faults`` is a cycle applied to successive completion requests: ``ok`` answers, ``slow``
answers after ``--slow-s`` seconds, ``error`` is an HTTP 500, ``empty`` an empty answer, ``garbage`` a
string of symbols, ``refusal`` a refusal sentence, ``broken`` a body that is not JSON, ``stall`` stops
for ``--slow-s`` seconds half-way through the answer. A request with ``"stream": true`` is answered with
server-sent ``chat.completion.chunk`` events, a word at a time (and the usage block last when
``stream_options.include_usage`` asks for it). With ``--fault-match`` only requests whose messages
contain that text take the next fault of the cycle (the others answer normally), so a drill can fault one
agent's part of a reply whatever order the parts arrive in. With ``--api-key-env`` a request must carry
that key as its bearer token (else 401). The log line of a request holds its method, path, status and
duration, never a header.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from serving.generation.base import GenerationConfig, GenerationError, Generator

FAULTS = ("ok", "slow", "error", "empty", "garbage", "refusal", "broken", "stall")
GARBAGE = "#%&*@!~^$" * 6
REFUSAL_TEXT = "I'm sorry, but I can't help with that."


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, generator: Generator, faults: Sequence[str] = ("ok",), slow_s: float = 2.0,
                 api_key: str | None = None, model_name: str = "local", fault_match: str = ""):  # fmt: skip
        super().__init__(address, _Handler)
        self.fault_match = fault_match
        unknown = [f for f in faults if f not in FAULTS]
        if unknown:
            raise ValueError(f"unknown fault {unknown[0]!r}; expected some of {', '.join(FAULTS)}")
        self.generator, self.slow_s, self.api_key, self.model_name = generator, slow_s, api_key, model_name
        self._faults = itertools.cycle(list(faults) or ["ok"])
        self._lock = threading.Lock()
        self.requests = 0

    def next_fault(self, messages: Sequence[dict]) -> str:
        """The fault this request gets: the cycle's next, or "ok" when ``fault_match`` does not match."""
        if self.fault_match and not any(self.fault_match in str(m.get("content", "")) for m in messages):
            return "ok"
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
        fault = self.server.next_fault(messages)
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
        if request.get("stream"):
            usage_too = bool((request.get("stream_options") or {}).get("include_usage"))
            return self._stream(request, text, used if usage_too else None, stall=fault == "stall")
        if fault == "stall":
            time.sleep(self.server.slow_s)
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

    def _stream(self, request: dict, text: str, used: dict | None, stall: bool) -> None:
        """The answer as server-sent chunks, a word (with its trailing spaces) each, then ``[DONE]``."""
        started = time.perf_counter()
        head = {"id": f"chatcmpl-{uuid.uuid4().hex[:12]}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": str(request.get("model") or self.server.model_name)}  # fmt: skip
        words = re.findall(r"\s*\S+\s*", text) or ([text] if text else [])
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")  # no length: the end of the body is the end of the stream
        self.end_headers()
        self.close_connection = True

        def send(payload: dict | str) -> None:
            data = payload if isinstance(payload, str) else json.dumps({**head, **payload})
            self.wfile.write(f"data: {data}\n\n".encode())
            self.wfile.flush()

        try:
            for i, word in enumerate(words):
                if stall and i == len(words) // 2:
                    time.sleep(self.server.slow_s)
                delta = {"role": "assistant", "content": word} if i == 0 else {"content": word}
                send({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
            send({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
            if used is not None:
                total = used["prompt_tokens"] + used["completion_tokens"]
                send({"choices": [], "usage": {**used, "total_tokens": total}})
            send("[DONE]")
        except (BrokenPipeError, ConnectionResetError):  # the reader stopped listening: nothing to finish
            pass
        took = (time.perf_counter() - started) * 1000
        print(
            f"{self.command} {self.path} 200 stream {len(words)} chunks {took:.1f} ms",
            file=sys.stderr,
            flush=True,
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
    parser.add_argument("--fault-match", default="", help="fault only requests whose messages contain this")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (local backend)")
    args = parser.parse_args(argv)
    if args.backend == "local":
        import torch

        torch.set_num_threads(max(1, args.threads))
    from serving.generation import make_generator

    generator = make_generator(GenerationConfig(backend=args.backend, model=args.model))
    key = os.environ.get(args.api_key_env) if args.api_key_env else None
    server = ChatServer((args.host, args.port), generator, [f.strip() for f in args.faults.split(",") if f.strip()],
                        args.slow_s, key, model_name=os.path.basename(args.model.rstrip("/")) or args.backend,
                        fault_match=args.fault_match)  # fmt: skip
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
