"""bench/comm_learning.py --quick runs end to end, writes every documented key, and the learned arm learns."""

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
    # Learning (quick: 24,000 episodes, seeded; seed 0 gives success 1.0, entropy 1.79 -> 1.53, distractor
    # attention 0.019, 4.3 messages; seeds 1, 2: entropy -> 1.55 / 1.48, distractors 0.009 / 0.0). A team
    # that does not learn stays at chance (1/16) with uniform attention (entropy ln 6, distractors 2/6).
    learned, arms = result["learned"], result["arms"]
    assert result["arms"]["learned"]["runs"][0]["episodes"] == 24_000  # a count, whatever the load
    assert learned["success"] >= 0.9 and learned["success"] >= arms["none"]["success"] + 0.5
    assert arms["none"]["success"] <= 0.2  # the no-communication reference cannot beat chance by much
    assert learned["entropy_end"] <= learned["entropy_start"] - 0.1  # attention sparser than uniform
    assert learned["distractor_attention"] <= 0.1 < arms["broadcast"]["distractor_attention"]
    assert arms["broadcast"]["distractor_attention"] == pytest.approx(2 / 6, abs=1e-3)  # uniform share
    assert arms["learned"]["messages_per_episode"] < 5.5  # it stops delivering the distractors' messages
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
