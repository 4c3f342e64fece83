"""Shared by the benchmark smoke tests: run `bench/NAME.py --quick` for real and read its JSON."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run_quick_bench(tmp_path):
    def run(name: str, *extra: str, timeout: float = 280) -> dict:
        out = tmp_path / f"{name}.json"
        proc = subprocess.run(
            [sys.executable, str(ROOT / "bench" / f"{name}.py"), "--quick", "--out", str(out), *extra],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads(out.read_text())

    return run
