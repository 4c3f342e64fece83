"""Benchmark: the reply writer per backend (replies per second, p95 latency) and under injected faults.

    python bench/generation.py --out FILE.json [--tickets 200] [--quick]

Each backend writes the replies of customer-service test tickets through `serving.generation.tickets.
TicketWriter` (the agents' parts side by side, under the writer's breaker), ``--concurrency`` requests at
a time, with the tickets' true intents standing in for a played episode (the team's cost is
bench/inference.py's). Backends: ``template``; ``local``, a tiny random-weight causal LM built on the spot
(2 layers, hidden 32: its speed is the machinery's, not a real model's); ``openai_compatible``, the same
tiny LM behind `python -m serving.generation.server` on loopback, through the official client. Faults: a
server answering in a cycle of slow (past the deadline), HTTP 500, empty, garbage and good replies; every
request must still be answered within its deadline. Keys are documented in bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from agents.envs.customer_service.tickets import load_tickets  # noqa: E402
from serving.generation import GenerationConfig  # noqa: E402
from serving.generation.tickets import TicketWriter  # noqa: E402
from tests.serving.generation.tiny_chat_lm import build_chat_lm  # noqa: E402

EXAMPLE = ROOT / "examples" / "customer_service.json"
FAULT_CYCLE = "slow,error,empty,garbage,ok"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return (
        ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))] if ordered else float("nan")
    )


def served(ticket) -> dict:
    """A played episode as the writer reads it: the approved draft holds the ticket's true intents."""
    return {"info": {"predicted_intents": list(ticket.intents), "approved": True}, "decisions": []}


def measure(writer: TicketWriter, tickets: list, concurrency: int, deadline_s: float) -> dict:
    """Write every ticket's reply, ``concurrency`` at a time; throughput, latency, who wrote what."""

    def one(ticket):
        started = time.perf_counter()
        reply = writer.answer(ticket.text, served(ticket))
        return reply, (time.perf_counter() - started) * 1000.0

    writer.answer(tickets[0].text, served(tickets[0]))  # warm-up (first forward, first connection)
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(one, tickets))
    wall = time.perf_counter() - started
    latencies = [ms for _, ms in results]
    replies = [r for r, _ in results]
    kinds: dict[str, int] = {}
    for reply in replies:
        for fault in reply["faults"]:
            kinds[fault["kind"]] = kinds.get(fault["kind"], 0) + 1
    return {
        "requests": len(replies),
        "replies_per_second": round(len(replies) / wall, 2),
        "p50_ms": round(percentile(latencies, 50), 2),
        "p95_ms": round(percentile(latencies, 95), 2),
        "max_ms": round(max(latencies), 2),
        "answered_share": sum(bool(r["text"]) and ms <= deadline_s * 1000 + 250 for r, ms in results)
        / len(results),
        "fallback_share": round(sum(r["fallback"] for r in replies) / len(replies), 4),
        "fault_kinds": kinds,
        "completion_tokens_per_reply": round(
            statistics.mean(r["usage"]["completion_tokens"] for r in replies), 1
        ),
        "parts_per_reply": round(statistics.mean(len(r["parts"]) for r in replies), 2),
        "wall_seconds": round(wall, 2),
    }


class Server:
    """`python -m serving.generation.server` as a child process on a free loopback port."""

    def __init__(self, log: Path, backend: str, model: str = "", faults: str = "ok", slow_s: float = 2.0):
        self.port = free_port()
        args = [
            sys.executable,
            "-m",
            "serving.generation.server",
            "--backend",
            backend,
            "--port",
            str(self.port),
        ]
        args += ["--faults", faults, "--slow-s", str(slow_s), "--threads", "1"]
        args += ["--model", model] if model else []
        self.log = log
        self.handle = log.open("ab")
        self.proc = subprocess.Popen(args, cwd=ROOT, stdout=self.handle, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 90
        while "serving chat completions" not in log.read_text():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"chat server did not start:\n{log.read_text()[-2000:]}")
            time.sleep(0.1)
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.handle.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true", help="a smoke run in well under a minute")
    parser.add_argument("--tickets", type=int, default=200, help="tickets per LM backend (template: 10×)")
    parser.add_argument("--fault-requests", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--max-tokens", type=int, default=32)
    parser.add_argument("--deadline-s", type=float, default=1.0, help="the fault run's deadline per request")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    if args.quick:
        args.tickets, args.fault_requests = 24, 20
    torch.set_num_threads(args.threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    started = time.perf_counter()
    agents = json.loads(EXAMPLE.read_text())["agents"]
    tickets = load_tickets("test")
    lm_tickets = tickets[: args.tickets]
    work = Path(tempfile.mkdtemp(prefix="mase-bench-generation-"))
    model_dir = build_chat_lm(work / "tiny_lm")
    relaxed = dict(
        max_tokens=args.max_tokens, deadline_s=60.0, max_chars=100_000
    )  # measure, do not judge time
    out: dict = {"backends": {}}

    template = TicketWriter.build(GenerationConfig(**relaxed), agents)
    out["backends"]["template"] = measure(template, tickets[: 10 * args.tickets], args.concurrency, 60.0)
    local = TicketWriter.build(GenerationConfig(backend="local", model=str(model_dir), **relaxed), agents)
    out["backends"]["local"] = measure(local, lm_tickets, args.concurrency, 60.0)
    out["backends"]["local"]["forward_batches"] = local.writer.generator.batches
    local.close()

    server = Server(work / "lm_server.log", "local", str(model_dir))
    try:
        remote = GenerationConfig(backend="openai_compatible", model="tiny", base_url=server.url, **relaxed)
        writer = TicketWriter.build(remote, agents)
        out["backends"]["openai_compatible"] = measure(writer, lm_tickets, args.concurrency, 60.0)
        writer.close()
    finally:
        server.close()

    faulty = Server(work / "fault_server.log", "template", faults=FAULT_CYCLE, slow_s=args.deadline_s + 1.0)
    try:
        guarded = GenerationConfig(
            backend="openai_compatible", model="m", base_url=faulty.url, max_retries=0, timeout_s=args.deadline_s + 2,
            deadline_s=args.deadline_s, cooldown_s=0.0, max_tokens=args.max_tokens,
        )  # fmt: skip
        writer = TicketWriter.build(guarded, agents)
        # one request at a time with no cool-down: every request after a fault is the half-open trial, so
        # each one meets the server's next behaviour and the fallback share is the share of faulty answers
        faults = measure(writer, tickets[: args.fault_requests], 1, args.deadline_s)
        faults["breaker_opened"] = writer.writer.breaker.counts["opened"]
        writer.close()
    finally:
        faulty.close()
    out["faults"] = {"cycle": FAULT_CYCLE, "deadline_s": args.deadline_s, **faults}
    out["settings"] = {
        "tickets": len(lm_tickets),
        "template_tickets": min(len(tickets), 10 * args.tickets),
        "concurrency": args.concurrency,
        "max_tokens": args.max_tokens,
        "threads": args.threads,
        "cpu_count": os.cpu_count(),
        "quick": args.quick,
        "local_model": "random 2-layer Llama, hidden 32, 128-token context (tests/serving/generation/tiny_chat_lm.py)",
    }
    out["wall_seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).write_text(json.dumps(out, indent=2))
    summary = {name: (b["replies_per_second"], b["p95_ms"]) for name, b in out["backends"].items()}
    print(f"replies/s, p95 ms: {summary}; faults: answered {faults['answered_share']:.0%}, "
          f"fallback {faults['fallback_share']:.0%}", file=sys.stderr)  # fmt: skip
    return 0 if faults["answered_share"] == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
