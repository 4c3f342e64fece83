"""Web ticket benchmark: `POST /api/deployments/<id>/tickets/` against the real server under load.

Starts what `python manage.py serve` starts — embedded Redis (or the Redis of REDIS_URL), the ASGI server
(daphne) and a Celery worker — on a fresh SQLite database in a temporary MASE_DATA_DIR (or on the database
of DATABASE_URL, migrated first). Trains the customer-service team of `examples/customer_service.json`
for a moment on the default backbone (all-MiniLM-L6-v2; `--checkpoint` reuses a trained one), deploys it
through the ORM with a project, an operator and an API token, sends every ticket text once (the server
builds the team and caches the embeddings), then fires tickets from 1, 8 and 32 concurrent clients over
keep-alive loopback connections, each level bounded by a request count and a time limit.

    python bench/web_tickets.py --out bench/results/web_tickets.json
    python bench/web_tickets.py --quick --out web_tickets.json       # smoke run (a test runs this)
    python bench/web_tickets.py --url http://127.0.0.1:8000 --out f.json  # a running server on this database

With ``--url`` the server must use the database this process is configured for (the same DATABASE_URL,
or MASE_DATA_DIR for SQLite): the project, user, token and deployment are created there.
Keys are documented in bench/README.md (section bench/web_tickets.py).
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402

SPEC = ROOT / "examples" / "customer_service.json"
LEVELS = (1, 8, 32)
# The targets at 32 concurrent clients, against the web floor (GET breaker, 32 clients) of the same run:
# absolute figures on a 2-core machine others share swing with their load, ratios much less.
TARGET_RPS_RATIO, TARGET_P95_RATIO = 0.6, 1.5


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def process_tree(pid: int) -> list[int]:
    """The process and its descendants (Linux /proc): the web server's daphne processes."""
    pids, i = [pid], 0
    while i < len(pids):
        for task in Path(f"/proc/{pids[i]}/task").glob("*/children"):
            try:
                pids += [int(c) for c in task.read_text().split()]
            except OSError:
                pass
        i += 1
    return pids


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time so far of a process, its threads and its child processes (Linux /proc),
    None when unknown."""
    if pid is None:
        return None
    total = 0.0
    for member in process_tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            if member == pid:
                return None
            continue
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def percentile(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 2) if values else None


def team_spec(backbone: str, threshold: float) -> dict:
    """The shipped team with a training budget of a moment; the breaker threshold as asked."""
    doc = json.loads(SPEC.read_text())
    doc["backbone"] = {"model": backbone, "pooling": "mean", "max_length": 64}
    doc["training"] |= {"episodes": 2, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0}
    # no clause pre-training (minutes)
    doc["environment"]["params"] |= {"reader": "whole", "warm_start_episodes": 0}
    doc["circuit_breaker"] |= {"confidence_threshold": threshold}
    return doc


def train(spec: dict, out: Path) -> tuple[Path, float]:
    """A checkpoint of the team (training.mappo.run_spec, the path a server run takes) and its seconds."""
    import torch

    from agents.backbone import Backbone
    from agents.spec import load_spec
    from training.mappo import run_spec

    torch.set_num_threads(1)
    started = time.perf_counter()
    b = spec["backbone"]
    backbone = Backbone.load(b["model"], pooling=b["pooling"], max_length=b["max_length"])
    run_spec(load_spec(spec), out, backbone=backbone)
    return out / "checkpoints" / "mappo" / "last", round(time.perf_counter() - started, 1)


def deploy(spec: dict, checkpoint: Path) -> tuple[str, int]:
    """A project, an operator with an API token, a succeeded run and its deployment (through the ORM)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from mase_web.accounts.models import Membership, Project, Role
    from mase_web.deployments.models import Deployment
    from mase_web.runs.models import Checkpoint, Run

    tag = uuid.uuid4().hex[:8]
    project = Project.objects.create(name=f"bench-web-tickets-{tag}")
    user = get_user_model().objects.create_user(f"bench-operator-{tag}")
    Membership.objects.create(project=project, user=user, role=Role.OPERATOR)
    run = Run.objects.create(
        project=project, name="customer service", spec=copy.deepcopy(spec), state=Run.State.SUCCEEDED
    )
    Checkpoint.objects.create(run=run, step=2, path=str(checkpoint))
    deployment = Deployment.objects.create(
        project=project, name="bench", run=run, checkpoint=str(checkpoint), spec=copy.deepcopy(spec)
    )
    return Token.objects.create(user=user).key, deployment.pk


class Client:
    """One keep-alive HTTP connection posting tickets (a client of the load test)."""

    def __init__(self, base_url: str, token: str, deployment_id: int, timeout: float):
        parts = urlsplit(base_url)
        self.host, self.port, self.timeout = parts.hostname, parts.port or 80, timeout
        self.path = f"/api/deployments/{deployment_id}/"
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
        self.conn: http.client.HTTPConnection | None = None

    def post(self, text: str) -> tuple[int, dict | None]:
        """Send one ticket; (HTTP status, parsed body)."""
        return self.request("POST", "tickets/", {"text": text})

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            data = json.dumps(body) if body is not None else None
            self.conn.request(method, self.path + path, data, self.headers)
            response = self.conn.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            self.close()  # a broken connection is reopened by the next request
            raise
        try:
            return response.status, json.loads(body)
        except ValueError:
            return response.status, None

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def fire(
    base_url: str,
    token: str,
    deployment_id: int,
    texts: list[str],
    clients: int,
    requests: int,
    seconds: float,
    server_pid: int | None = None,
    floor: bool = False,
) -> dict[str, Any]:
    """``requests`` tickets (fewer if ``seconds`` run out) from ``clients`` concurrent connections; with
    ``floor``, GETs of the deployment's breaker state instead (the web stack with no ticket work)."""
    counter, lock = iter(range(requests)), threading.Lock()
    latencies: list[float] = []
    errors: list[str] = []
    load_before = os.getloadavg()[0]
    start = threading.Barrier(clients + 1)
    deadline = [0.0]

    def client_loop() -> None:
        client = Client(base_url, token, deployment_id, timeout=60)
        start.wait()
        try:
            while time.monotonic() < deadline[0]:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                t0 = time.perf_counter()
                try:
                    if floor:
                        status, body = client.request("GET", "breaker/")
                        ok = status == 200 and body is not None and "state" in body
                    else:
                        status, body = client.post(texts[i % len(texts)])
                        ok = status == 201 and body is not None and bool(body["result"]["decisions"])
                    problem = "" if ok else f"HTTP {status}: {str(body)[:200]}"
                except Exception as exc:  # noqa: BLE001 - every failure is counted, none stops the run
                    problem = f"{type(exc).__name__}: {exc}"
                elapsed = (time.perf_counter() - t0) * 1000.0
                with lock:
                    (errors.append(problem) if problem else latencies.append(elapsed))
        finally:
            client.close()

    threads = [threading.Thread(target=client_loop, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    deadline[0] = time.monotonic() + seconds
    cpu_before = cpu_seconds(server_pid)
    started = time.perf_counter()
    start.wait()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    cpu_after = cpu_seconds(server_pid)
    done = len(latencies) + len(errors)
    server_cpu = None
    if cpu_before is not None and cpu_after is not None and done:
        server_cpu = round((cpu_after - cpu_before) * 1000.0 / done, 2)
    return {
        "clients": clients,
        "requests": done,
        "errors": len(errors),
        "rps": round(len(latencies) / wall, 1),
        "p50_ms": percentile(latencies, 50),
        "p95_ms": percentile(latencies, 95),
        "max_ms": round(max(latencies), 1) if latencies else None,
        "server_cpu_ms": server_cpu,
        "wall_seconds": round(wall, 2),
        "load_avg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "first_errors": errors[:3],
    }


def last_episode_id(deployment_id: int) -> int:
    from django.db import connection

    from mase_web.deployments.models import Episode

    last = (
        Episode.objects.filter(deployment_id=deployment_id)
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    connection.close()
    return last or 0


def mean_group_size(deployment_id: int, after_id: int) -> float | None:
    """How many tickets played together, on average, for the episodes stored after ``after_id``."""
    from django.db import connection

    from mase_web.deployments.models import Episode

    rows = Episode.objects.filter(deployment_id=deployment_id, pk__gt=after_id).values_list(
        "result", flat=True
    )
    sizes = [r.get("group_size", 1) for r in rows if r]
    connection.close()
    return round(sum(sizes) / len(sizes), 2) if sizes else None


def log_check(deployment_id: int, answered: int) -> dict[str, Any]:
    """Whether the decision log is whole: an episode per answered ticket, each finished with its steps
    numbered from 1 without gaps and every agent of a step present."""
    from django.db.models import Count, Max, Min

    from mase_web.deployments.models import DecisionStep, Episode

    episodes = Episode.objects.filter(deployment_id=deployment_id)
    running = episodes.filter(status=Episode.Status.RUNNING).count()
    per = {
        row["episode"]: row
        for row in DecisionStep.objects.filter(episode__deployment_id=deployment_id)
        .values("episode")
        .annotate(n=Count("id"), first=Min("step"), last=Max("step"), steps=Count("step", distinct=True))
    }
    broken = 0
    for episode in episodes.only("id", "result"):
        row = per.get(episode.pk)
        steps = (episode.result or {}).get("steps")
        if row is None or row["first"] != 1 or row["last"] != steps or row["steps"] != steps:
            broken += 1
    return {
        "episodes": episodes.count(),
        "answered": answered,
        "running": running,
        "incomplete": broken,
        "decisions": sum(r["n"] for r in per.values()),
    }


@contextmanager
def server(args) -> Any:
    """The base URL of the server under test: ``--url``, or one started here with its worker and Redis."""
    if args.url:
        yield args.url.rstrip("/"), None
        return
    from django.conf import settings

    from mase_web.core.launcher import ProcessGroup, server_command, wait_for_http, worker_command
    from mase_web.embedded import EmbeddedRedis, _die_with_parent, child_env

    redis = EmbeddedRedis(settings.REDIS.socket_path).start() if settings.REDIS.embedded else None
    env = child_env(REDIS_URL=settings.REDIS.url, DEBUG="0", LOG_LEVEL="WARNING")
    port = free_port()
    group = ProcessGroup()
    logs = settings.DATA_DIR / "bench-logs"
    logs.mkdir(exist_ok=True)
    try:
        for name, cmd in (("web", server_command("127.0.0.1", port)), ("worker", worker_command("cpu"))):
            with (logs / f"{name}.log").open("wb") as log:
                group.children[name] = subprocess.Popen(
                    cmd, env=env, cwd=ROOT, stdout=log, stderr=log, preexec_fn=_die_with_parent
                )
        wait_for_http(f"http://127.0.0.1:{port}/api/health/", group, timeout=120)
        yield f"http://127.0.0.1:{port}", group.children["web"].pid
    except BaseException:
        for name in group.children:
            tail = (logs / f"{name}.log").read_text(errors="replace")[-2000:]
            print(f"[web_tickets] {name} log:\n{tail}", file=sys.stderr)
        raise
    finally:
        group.stop()
        if redis is not None:
            redis.stop()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description="Tickets through the web API under concurrent load.")
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument("--quick", action="store_true", help="smoke run: few requests per level")
    parser.add_argument("--url", help="benchmark this running server (it must use this database)")
    parser.add_argument("--backbone", default="default", help="backbone of the team (default: MiniLM)")
    parser.add_argument("--checkpoint", help="deploy this trained checkpoint instead of training one")
    parser.add_argument(
        "--save-checkpoint", help="train the team into this directory (kept for --checkpoint)"
    )
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.0,
        help="breaker confidence threshold (0: the team answers every step)",
    )
    parser.add_argument("--clients", default=",".join(map(str, LEVELS)), help="concurrency levels")
    parser.add_argument("--requests", type=int, default=None, help="tickets per level (600; quick 32)")
    parser.add_argument("--seconds", type=float, default=None, help="time limit per level (60; quick 30)")
    parser.add_argument("--texts", type=int, default=None, help="distinct test tickets sent (300; quick 16)")
    args = parser.parse_args(argv)
    requests = args.requests or (32 if args.quick else 600)
    seconds = args.seconds or (30.0 if args.quick else 60.0)
    n_texts = args.texts or (16 if args.quick else 300)
    levels = [int(c) for c in args.clients.split(",") if c.strip()]

    temp_dir = None
    if not args.url:  # the SQLite database (unless DATABASE_URL), Redis socket, logs and team live here
        temp_dir = tempfile.mkdtemp(prefix="mase-bench-web-")
        os.environ["MASE_DATA_DIR"] = temp_dir
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    started = time.perf_counter()
    try:
        if not args.url:
            call_command("migrate", interactive=False, verbosity=0)
        spec = team_spec(args.backbone, args.threshold)
        train_seconds = None
        if args.checkpoint:
            checkpoint = Path(args.checkpoint).resolve()
        else:
            out = Path(args.save_checkpoint) if args.save_checkpoint else settings.DATA_DIR / "bench-team"
            checkpoint, train_seconds = train(spec, out.resolve())
        token, deployment_id = deploy(spec, checkpoint)
        connection.close()  # SQLite: this process must not hold the database while the server writes

        from agents.envs.customer_service.tickets import load_tickets

        texts = [t.text for t in load_tickets("test")[:n_texts]]
        with server(args) as (base_url, pid):
            # each text once: the server builds the team and caches every embedding before the clock runs
            # at the top level's concurrency, so the runtime's pool of environments is full before timing
            warm = fire(base_url, token, deployment_id, texts, min(max(levels), len(texts)), len(texts), 600)
            print(f"[web_tickets] warm-up: {warm}", file=sys.stderr, flush=True)
            results = []
            for clients in levels:
                before = last_episode_id(deployment_id)
                results.append(fire(base_url, token, deployment_id, texts, clients, requests, seconds, pid))
                results[-1]["group_size"] = mean_group_size(deployment_id, before)
                print(f"[web_tickets] {results[-1]}", file=sys.stderr, flush=True)
            floor = fire(
                base_url, token, deployment_id, texts, max(levels), requests, seconds, pid, floor=True
            )
            print(f"[web_tickets] floor (GET breaker): {floor}", file=sys.stderr, flush=True)
        answered = warm["requests"] - warm["errors"] + sum(r["requests"] - r["errors"] for r in results)
        check = log_check(deployment_id, answered)
        from mase_web.deployments.models import Deployment

        breaker = Deployment.objects.get(pk=deployment_id).breaker_state
    finally:
        connection.close()
        if temp_dir is not None:
            shutil.rmtree(temp_dir, ignore_errors=True)

    top = next((r for r in results if r["clients"] == 32), None)
    rps_ratio = p95_ratio = None
    if top is not None and floor["rps"] and floor["p95_ms"] and top["p95_ms"]:
        rps_ratio = round(top["rps"] / floor["rps"], 3)
        p95_ratio = round(top["p95_ms"] / floor["p95_ms"], 3)
    out: dict[str, Any] = {
        "levels": results,
        "warmup": {k: warm[k] for k in ("requests", "errors", "rps", "p50_ms", "p95_ms")},
        "web_floor": {k: v for k, v in floor.items() if k != "first_errors"},
        "decision_log": check,
        "breaker_state": breaker,
        "targets": {
            "rps_ratio_32": TARGET_RPS_RATIO,
            "p95_ratio_32": TARGET_P95_RATIO,
            "rps_ratio": rps_ratio,
            "p95_ratio": p95_ratio,
            "met": rps_ratio is not None
            and top["errors"] == 0
            and floor["errors"] == 0
            and rps_ratio >= TARGET_RPS_RATIO
            and p95_ratio <= TARGET_P95_RATIO,
        },
        "server": "url" if args.url else "started",
        "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
        "redis": "embedded" if settings.REDIS.embedded else "url",
        # the started server's processes and request threads (MASE_WEB_PROCESSES, MASE_WEB_THREADS)
        "web_processes": None if args.url else settings.MASE_WEB_PROCESSES,
        "web_threads": None if args.url else settings.MASE_WEB_THREADS,
        "backbone": args.backbone,
        "threshold": args.threshold,
        "texts": len(texts),
        "requests_per_level": requests,
        "seconds_per_level": seconds,
        "train_seconds": train_seconds,
        "cpu_count": os.cpu_count(),
        "quick": bool(args.quick),
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2))
    print(json.dumps({k: out[k] for k in ("levels", "decision_log", "targets")}, indent=1), file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
