"""bench/paired.py joins one-seed result files and pairs an arm with its baselines on every split."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.paired import paired_stats, sign_test_p

ROOT = Path(__file__).resolve().parents[2]


def seed_result(seed: int, scores: dict[str, tuple[float, float]]) -> dict:
    """A workflows.py result of one seed: {arm: (test, holdout)} exact matches (no validation split)."""
    return {
        "seeds": [seed],
        "customer_service": {arm: {"exact_match": test} for arm, (test, _) in scores.items()},
        "customer_service_holdout": {arm: {"exact_match": holdout} for arm, (_, holdout) in scores.items()},
    }


def test_sign_test_and_t_on_hand_computed_cases():
    assert sign_test_p(3, 0) == pytest.approx(1 / 8)
    assert sign_test_p(2, 1) == pytest.approx(4 / 8)
    stats = paired_stats({0: 0.1, 1: 0.3, 2: -0.1, 3: 0.0})
    assert (stats["wins"], stats["losses"], stats["ties"], stats["seeds"]) == (2, 1, 1, 4)
    assert stats["mean"] == pytest.approx(0.075) and stats["median"] == pytest.approx(0.05)
    assert stats["t"] == pytest.approx(0.075 / (stats["sd"] / 2))
    assert paired_stats({0: 0.2, 1: 0.2})["t"] is None  # no spread, no t


def test_joins_seed_files_and_pairs_on_every_split(tmp_path):
    files = []
    for seed, scores in {
        10: {"a": (0.9, 0.8), "b": (0.8, 0.6)},
        11: {"a": (0.7, 0.7), "b": (0.8, 0.5)},
    }.items():
        files.append(tmp_path / f"seed{seed}.json")
        files[-1].write_text(json.dumps(seed_result(seed, scores)))
    out = tmp_path / "paired.json"
    options = ["--out", str(out), "--arm", "a", "--against", "b"]
    script = [sys.executable, str(ROOT / "bench" / "paired.py")]
    printed = subprocess.run(
        [*script, *map(str, files), *options], check=True, capture_output=True, text=True
    ).stdout
    result = json.loads(out.read_text())
    assert result["seeds"] == [10, 11] and set(result) == {"seeds", "arm", "test", "holdout"}
    holdout = result["holdout"]["versus"]["b"]
    assert holdout["per_seed"] == {"10": pytest.approx(0.2), "11": pytest.approx(0.2)}
    assert holdout["wins"] == 2 and holdout["sign_test_p"] == pytest.approx(0.25)
    assert result["test"]["means"] == {"a": pytest.approx(0.8), "b": pytest.approx(0.8)}
    assert "holdout    a − b: +20.0 points" in printed
    # the same seed twice is refused, not averaged in silently
    failed = subprocess.run(
        [*script, *map(str, files), str(files[0]), *options], capture_output=True, text=True
    )
    assert failed.returncode != 0 and "seed 10 appears twice" in failed.stderr
