"""bench/streaming.py --quick runs end to end and reports every documented key, with no loss."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.services


def test_quick_streaming_benchmark(tmp_path):
    out = tmp_path / "streaming.json"
    env_data = tmp_path / "data"
    result = subprocess.run(
        [sys.executable, "bench/streaming.py", "--quick", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "MASE_DATA_DIR": str(env_data)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(out.read_text())
    assert {"events_per_s", "clients", "latency_ms", "lost", "duplicated"} <= set(report)
    assert set(report["latency_ms"]) == {"p50", "p95", "p99"}
    assert report["clients"] == 3 and report["events"] == 401
    assert report["lost"] == 0 and report["duplicated"] == 0 and report["in_order"]
