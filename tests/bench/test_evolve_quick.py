"""bench/evolve.py --quick: the loop runs through the product (tickets played and reviewed, corrections in
the dataset, challengers trained and judged on the slice) and every documented key is there."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.evolve import corrupter
from bench.evolve_traffic import FAMILIES, drift_stream, written_families

ROOT = Path(__file__).resolve().parents[2]


def test_the_drift_traffic_mixes_the_repository_sets_and_the_written_families():
    stream = drift_stream(per_family=10, seed=0)
    families = {t["family"] for t in stream}
    assert families == {"holdout_styles", "handwritten", "handwritten_voices", *FAMILIES}
    assert drift_stream(per_family=10, seed=0) == stream  # seeded
    written = written_families(10)
    assert all(t["intents"] == sorted(t["intents"]) and 1 <= len(t["intents"]) <= 2 for t in written)
    assert len({t["text"] for t in written}) > 0.9 * len(written)


def test_a_corrupted_correction_is_never_the_truth_and_comes_at_the_declared_share():
    import random

    intents = ["a", "b", "c", "d"]
    corrupt = corrupter(random.Random(0), 0.3, intents)
    ticket = {"intents": ["b"]}
    said = [corrupt(ticket, ["c"]) for _ in range(2000)]
    bad = [s for s in said if s is not None]
    assert 0.25 < len(bad) / len(said) < 0.35
    assert all(s != ["b"] for s in bad)
    assert ["c"] in bad  # the adversarial half names b as the next intent, always


@pytest.mark.services
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_evolve_quick(tmp_path):
    out = tmp_path / "evolve.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "MASE_DATA_DIR")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "evolve.py"), "--quick", "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=1150,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())["evolve"]
    drift = doc["drift"]["4"]
    assert drift["generations"] == 2 and drift["corrections"] == 8
    assert len(drift["exact_match_by_generation"]) == 3
    assert all(0.0 <= x <= 1.0 for x in drift["exact_match_by_generation"])
    for run in drift["runs"]:
        assert run["corrected"] == 4 and run["played"] >= 4
        assert run["slice_tickets"] >= 2 and run["reason"]
        assert run["start"].startswith("taught by generation")
        assert not math.isnan(run["challenger_unseen"])
    assert drift["promoted"] == sum(r["promoted"] for r in drift["runs"])
    safety = doc["safety"]
    assert safety["runs"] == 1 and safety["worse_promoted"] in (0, 1)
    assert safety["results"][0]["corrected"] == 4
