"""Benchmark: run events from a worker process to N WebSocket clients through the real channel layer.

    python bench/streaming.py --out FILE.json [--rate 1000] [--seconds 10] [--clients 20] [--quick]

A separate "worker" process emits events at a fixed rate through the same `RunEventRecorder` a Celery
worker uses (database first, then one channel-layer message per batch); a real daphne server runs the
`RunStreamConsumer`; N clients in this process subscribe over WebSockets. Every client checks the
count and the sequence of what it received. Latency is the receive time minus the event's emission
time (both processes read the same clock). Uses REDIS_URL/DATABASE_URL when set, else the embedded
default in a temporary MASE_DATA_DIR. Keys are documented in bench/README.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
    import django

    django.setup()


def emit(run_id: int, rate: float, seconds: float, flush_interval: float) -> None:
    """The worker side: emit `rate` events/s for `seconds` through the real recorder."""
    setup_django()
    from mase_web.runs.recorder import RunEventRecorder
    from training.events import EventStream

    stream = EventStream()
    recorder = RunEventRecorder(run_id, flush_interval=flush_interval, system_every=1e9).attach(stream)
    total = int(rate * seconds)
    start = time.perf_counter()
    for i in range(total):
        target = start + i / rate
        delay = target - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        stream.emit("metrics", step=i, episode=i, reward=float(i % 7), success=0.5)
    stream.emit("finished", status="succeeded", metrics={})
    recorder.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return (
        ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))] if ordered else float("nan")
    )


async def client(url: str, headers: dict, expected: int, ready: asyncio.Event, done: list) -> dict:
    import websockets

    seqs: list[int] = []
    latencies: list[float] = []
    first_emit = last_receive = 0.0
    async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
        ready.set()
        while not seqs or seqs[-1] < expected:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 60))
            now = time.time()
            for event in frame.get("events", []):
                first_emit = first_emit or event["time"]
                last_receive = now
                seqs.append(event["seq"])
                latencies.append((now - event["time"]) * 1000)
    unique = set(seqs)
    result = {
        "received": len(seqs),
        "lost": expected - len(unique & set(range(1, expected + 1))),
        "duplicated": len(seqs) - len(unique),
        "in_order": seqs == sorted(seqs),
        "latencies": latencies,
        "window": (first_emit, last_receive),
    }
    done.append(result)
    return result


def wait_http(url: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("the web server exited during start-up")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"no answer from {url}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", required=True)
    parser.add_argument("--rate", type=float, default=1000.0, help="events per second")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--flush-interval", type=float, default=0.02, help="recorder batch interval (s)")
    parser.add_argument(
        "--quick", action="store_true", help="sub-minute smoke run (200 ev/s, 2 s, 3 clients)"
    )
    parser.add_argument("--emit", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.quick:
        args.rate, args.seconds, args.clients = 200.0, 2.0, 3
    if args.emit:
        emit(args.emit, args.rate, args.seconds, args.flush_interval)
        return
    if not os.environ.get("MASE_DATA_DIR"):
        os.environ["MASE_DATA_DIR"] = tempfile.mkdtemp(prefix="mase-bench-")
    setup_django()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from mase_web.accounts.models import Membership, Project, Role
    from mase_web.core.launcher import server_command
    from mase_web.embedded import ensure_embedded_redis
    from mase_web.runs.models import Run

    redis = ensure_embedded_redis(settings.REDIS)
    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username="bench")
    project = Project.objects.create(name="bench")
    Membership.objects.create(project=project, user=user, role=Role.OPERATOR)
    run = Run.objects.create(project=project, name="stream bench", spec={}, state="running")
    web = Client()
    web.force_login(user)
    headers = {"Cookie": f"sessionid={web.cookies['sessionid'].value}", "Origin": "http://127.0.0.1"}

    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, REDIS_URL=settings.REDIS.url)
    server = subprocess.Popen(
        server_command("127.0.0.1", port),
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/api/health/", server)
        expected = int(args.rate * args.seconds) + 1  # + the "finished" event

        async def scenario() -> list[dict]:
            done: list[dict] = []
            readies = [asyncio.Event() for _ in range(args.clients)]
            url = f"ws://127.0.0.1:{port}/ws/runs/{run.pk}/"
            tasks = [asyncio.create_task(client(url, headers, expected, r, done)) for r in readies]
            await asyncio.gather(*(r.wait() for r in readies))
            emitter = await asyncio.create_subprocess_exec(
                sys.executable, __file__, "--out", "-", "--emit", str(run.pk), "--rate", str(args.rate),
                "--seconds", str(args.seconds), "--flush-interval", str(args.flush_interval), cwd=ROOT, env=env,
            )  # fmt: skip
            await asyncio.gather(*tasks)
            await emitter.wait()
            return done

        results = asyncio.run(scenario())
    finally:
        server.terminate()
        server.wait(timeout=20)
        if redis:
            redis.stop()
    latencies = [ms for r in results for ms in r["latencies"]]
    # From the first event's emission to the last delivery on the slowest client.
    elapsed = max(r["window"][1] for r in results) - min(r["window"][0] for r in results)
    report = {
        "events_per_s": round(expected / elapsed, 1),
        "target_rate": args.rate,
        "events": expected,
        "clients": args.clients,
        "latency_ms": {
            q: round(percentile(latencies, n), 2) for q, n in (("p50", 50), ("p95", 95), ("p99", 99))
        },
        "latency_ms_median_of_client_p95": round(
            statistics.median(percentile(r["latencies"], 95) for r in results), 2
        ),
        "lost": sum(r["lost"] for r in results),
        "duplicated": sum(r["duplicated"] for r in results),
        "in_order": all(r["in_order"] for r in results),
        "flush_interval_s": args.flush_interval,
        "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
        "redis": "embedded" if settings.REDIS.embedded else "server",
        "load_average": os.getloadavg(),
    }
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
