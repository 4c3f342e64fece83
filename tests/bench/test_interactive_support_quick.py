"""bench/interactive_support.py --quick runs end to end and writes every documented key: each arm's
metrics on the training families and the held-out ones, the target per seed and where MAPPO departs from
the chosen procedure."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARMS = (
    "rules:always_clarify",
    "rules:confident_else_clarify",
    "rules:always_review",
    "rules:escalate_after_8",
    "best_rules",
    "imitation",
    "ippo",
    "mappo",
)


@pytest.mark.slow
def test_quick_benchmark_writes_all_keys(tmp_path):
    out = tmp_path / "support.json"
    command = [sys.executable, str(ROOT / "bench" / "interactive_support.py"), "--quick", "--out", str(out)]
    subprocess.run(command, check=True, cwd=ROOT, timeout=600)
    result = json.loads(out.read_text())["interactive_support"]
    assert set(result["arms"]) == set(ARMS)
    for metrics in result["arms"].values():
        for key in ("resolution", "satisfaction", "escalations", "heldout_resolution"):
            assert 0.0 <= metrics[key] <= 1.0
        assert metrics["cost"] >= 4  # triage, search, answer and review at least
    assert result["arms"]["rules:escalate_after_8"]["escalations"] > 0
    assert result["targets"]["of"] == 1 and set(result["targets"]["seeds"]["0"]) >= {"resolution_gain", "met"}
    assert sum(result["differences"]["0"]["turns"].values()) > 0
    assert result["best_rules"] and result["rules_grid"]
