"""bench/communication.py --quick runs, writes the documented keys, and its numbers make sense."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # loads MiniLM in a subprocess when its embedding cache is cold
def test_quick_communication_bench_writes_documented_keys(tmp_path):
    out = tmp_path / "comm.json"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "communication.py"), "--quick", "--out", str(out)],
        check=True,
        cwd=ROOT,
        timeout=180,
        capture_output=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1"},
    )
    data = json.loads(out.read_text())
    assert set(data) == {"quick", "compression", "gossip", "priority", "auction", "seconds"}
    c = data["compression"]
    for key in (
        "byte_ratio",
        "intent_accuracy",
        "gold_accuracy",
        "byte_ratio_unbatched",
        "curve",
        "history",
        "drift",
    ):
        assert key in c
    assert 0 < c["byte_ratio"] < 0.05 and c["byte_ratio"] < c["byte_ratio_unbatched"]
    assert c["intent_accuracy"] >= 0.95 and c["intent_accuracy"] >= c["intent_accuracy_open_loop"]
    assert 0.4 < c["gold_accuracy"] <= 1.0
    assert c["zlib_ratio"] > c["byte_ratio"]  # semantic compression beats generic compression by far
    assert [p["bits_per_message"] for p in c["curve"]] == sorted(p["bits_per_message"] for p in c["curve"])
    for n in ("20", "50", "100"):
        g = data["gossip"][n]
        assert {"message_ratio", "rounds", "rounds_bound"} <= set(g)
        assert g["all_converged"] and g["rounds"] <= g["rounds_bound"]
    assert data["gossip"]["20"]["message_ratio"] < 1.0
    p = data["priority"]
    assert p["urgent_p95_ms"] <= 50.0 < p["fifo_urgent_p95_ms"] and p["offered_load"] > 1.0
    a = data["auction"]
    assert a["makespan_ratio"] < 1.0 and a["wait_ratio"] < 1.0
