"""bench/customer_service_probe.py --quick runs end to end and writes every documented key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_quick_probe_writes_every_key(tmp_path):
    out = tmp_path / "probe.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "customer_service_probe.py"),
            "--quick",
            "--out",
            str(out),
            "--threads",
            "1",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=280,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(out.read_text())
    assert result["quick"] is True and result["config"]["seeds"] == 1 and result["seconds"] > 0
    assert 0.5 <= result["rules_train"]["exact_match"] <= 1
    for split in ("validation", "test", "holdout_styles"):
        row = result["splits"][split]
        assert row["n"] == 40
        for arm in ("rules", "pooled_mlp", "clause_max"):
            assert 0 <= row[arm]["exact_match"] <= 1 and 0 <= row[arm]["intent_f1"] <= 1
