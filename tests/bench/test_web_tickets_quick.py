"""bench/web_tickets.py --quick: a real server answers every ticket at 1, 8 and 32 concurrent clients, the
decision log is whole, concurrent tickets were micro-batched, and every documented key is there."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEVEL_KEYS = {
    "clients",
    "requests",
    "errors",
    "rps",
    "p50_ms",
    "p95_ms",
    "max_ms",
    "server_cpu_ms",
    "wall_seconds",
    "load_avg_1m",
    "first_errors",
    "group_size",
}


@pytest.mark.services
@pytest.mark.slow
@pytest.mark.timeout(900)
def test_web_tickets_quick(tmp_path):
    out = tmp_path / "web_tickets.json"
    # its own SQLite database and embedded Redis, whatever this session runs on
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "MASE_DATA_DIR")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "web_tickets.py"), "--quick", "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=840,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())
    levels = doc["levels"]
    assert [level["clients"] for level in levels] == [1, 8, 32]
    for level in levels:
        assert set(level) == LEVEL_KEYS
        assert level["errors"] == 0 and level["requests"] == 32 and level["rps"] > 0, level
        assert 0 < level["p50_ms"] <= level["p95_ms"] <= level["max_ms"]
        assert level["server_cpu_ms"] > 0 and level["group_size"] >= 1
    assert levels[0]["group_size"] == 1  # one client: nobody to batch with
    assert levels[-1]["group_size"] > 1  # 32 clients: tickets played together
    log = doc["decision_log"]
    assert log["episodes"] == log["answered"] == doc["warmup"]["requests"] + 3 * 32
    assert log["running"] == 0 and log["incomplete"] == 0 and log["decisions"] >= log["episodes"]
    assert doc["web_floor"]["errors"] == 0 and doc["web_floor"]["rps"] > 0
    # the ratios to the web floor are the full run's targets (bench/README.md); on a busy 2-core CI machine
    # they swing with the neighbours' load, so here only that they are measured
    targets = doc["targets"]
    assert set(targets) == {"rps_ratio_32", "p95_ratio_32", "rps_ratio", "p95_ratio", "met"}
    assert (targets["rps_ratio_32"], targets["p95_ratio_32"]) == (0.6, 1.5)
    assert targets["rps_ratio"] > 0 and targets["p95_ratio"] > 0 and isinstance(targets["met"], bool)
    assert doc["web_processes"] >= 1 and doc["web_threads"] >= 0  # the server's MASE_WEB_* settings
    assert (doc["server"], doc["database"], doc["redis"], doc["quick"]) == (
        "started",
        "sqlite3",
        "embedded",
        True,
    )
