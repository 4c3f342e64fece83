"""bench/large_team_offline.py --quick: a ten-agent team trained for seconds, two served streams per allocation
with the busiest specialist taken offline by the operator at task 30 (nothing lost) or failing there."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "large_team_offline.py"


@pytest.mark.slow  # about a minute: it trains a team and serves 18 streams
def test_quick_mode_reports_every_key_and_the_operator_loses_nothing(tmp_path):
    spec = importlib.util.spec_from_file_location("large_team_offline", BENCH)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    figures = bench.main(["--quick", "--out", str(tmp_path / "f.json")])
    assert figures["large_team_offline.streams"] == 2
    for allocation in bench.ALLOCATIONS:
        key = f"large_team_offline.{allocation}"
        for name in ("none", "offline", "fault"):
            assert 0 <= figures[f"{key}.in_time_after_{name}"] <= 1
        assert figures[f"{key}.lost_offline"] == 0  # the operator's take-offline hands the work over
        assert figures[f"{key}.handed_over"] >= 0 and figures[f"{key}.lost_fault"] >= 0
    assert (tmp_path / "f.json").is_file()
