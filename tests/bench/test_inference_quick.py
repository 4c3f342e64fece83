"""bench/inference.py --quick: the documented keys, no errors at 32 concurrent requests, sane latencies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_inference_quick(tmp_path):
    out = tmp_path / "inference.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "inference.py"), "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert set(doc["ticket_latency_ms"]) >= {"p50", "p95"}
    assert set(doc["step_latency_ms"]) >= {"p95"}
    assert set(doc["concurrency"]) == {"1", "8", "32"}
    assert all(rps > 0 for rps in doc["concurrency"].values())
    assert doc["errors"] == 0 and doc["targets"]["no_errors_at_32"] is True
    # a ticket takes at least one step, so its latency bounds a step's from above
    assert 0 < doc["step_latency_ms"]["p50"] <= doc["ticket_latency_ms"]["p50"]
    assert doc["ticket_latency_ms"]["p50"] <= doc["ticket_latency_ms"]["p95"]
    # the "model" arm really ran the team; the guarded arm's breaker handed work to the rules
    model, guarded = doc["quality"]["model"], doc["quality"]["guarded"]
    assert model["model_step_share"] == 1.0 and model["breaker_opened"] == 0
    assert guarded["model_step_share"] < 1.0 and guarded["breaker_opened"] >= 1
    assert guarded["exact_match"] > 0.3  # the fallback answers sensibly
    for arm in ("model", "guarded"):
        assert set(doc["arms"][arm]) == {"1", "8", "32"}
        assert all(level["requests"] == doc["tickets"] for level in doc["arms"][arm].values())
    # the cold run is reported (whether it is slower than the warm one is a timing, left to the benchmark:
    # with the quick run's few short tickets the difference is within a loaded machine's noise)
    assert doc["cold"]["tickets"] > 0 and doc["cold"]["ticket_latency_ms"]["p50"] > 0
