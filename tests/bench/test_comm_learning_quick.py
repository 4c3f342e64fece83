"""bench/comm_learning.py --quick runs end to end and writes every documented key."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run_quick(out: Path, *options: str) -> dict:
    """`bench/comm_learning.py --quick` with `options`; its JSON result."""
    command = [sys.executable, str(ROOT / "bench" / "comm_learning.py"), "--quick", "--out", str(out)]
    subprocess.run([*command, *options], check=True, cwd=ROOT, timeout=240)
    return json.loads(out.read_text())


@pytest.mark.slow
def test_quick_benchmark_writes_all_keys(tmp_path):
    result = _run_quick(tmp_path / "comm.json", "--threads", "1")
    for arm in ("none", "broadcast", "random", "learned"):
        assert 0 <= result["arms"][arm]["success"] <= 1
        assert result["arms"][arm]["messages_per_episode"] >= 0
    assert result["arms"]["none"]["messages_per_episode"] == 0
    assert result["arms"]["broadcast"]["messages_per_episode"] == pytest.approx(6)
    for key in ("distractor_attention", "entropy_start", "entropy_end", "episodes_to_95", "seconds_to_95"):
        assert key in result["learned"]
    assert result["learned"]["entropy_start"] == pytest.approx(1.7918, abs=1e-3)  # uniform over 6 senders
    assert result["seeds"] and all("success" in s and "seconds_to_95" in s for s in result["seeds"].values())
    assert 0 <= result["heldout"]["success"] <= 1
    throughput = result["throughput"]
    assert throughput["backbone_sentences_per_s"] > 0 and throughput["train_episodes_per_s"] > 0
    assert throughput["ceiling_ratio"] == pytest.approx(
        throughput["train_episodes_per_s"] / throughput["bare_update_episodes_per_s"]
    )


@pytest.mark.slow
def test_quick_heldout_only_runs_the_n64_section_with_overrides(tmp_path):
    result = _run_quick(
        tmp_path / "held.json",
        "--heldout-only",
        "--heldout-set",
        "paraphrase_consistency=0.1",
        "--heldout-augment",
        "2",
    )
    assert set(result) == {"heldout", "quick", "wall_seconds"}
    held = result["heldout"]
    assert held["settings"]["paraphrase_consistency"] == 0.1 and held["settings"]["reading"] == "per_agent"
    assert held["augment"] == 2
    assert 0 <= held["success"] <= 1 and set(held["seeds"]) == {"0"}
