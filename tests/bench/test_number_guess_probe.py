"""bench/number_guess_probe.py --quick runs, writes the documented keys, and its numbers make sense."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # loads MiniLM in a subprocess: ~25 s on a shared 2-core machine
def test_quick_probe_writes_documented_keys(tmp_path):
    out = tmp_path / "probe.json"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "number_guess_probe.py"), "--quick", "--out", str(out)],
        check=True,
        cwd=ROOT,
        timeout=120,
        capture_output=True,
        env={"HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    data = json.loads(out.read_text())
    assert set(data) == {"backbone", "quick", "probe_c", "episodes_per_seed", "seeds", "variants", "seconds"}
    assert data["quick"] is True and set(data["variants"]) == {"n16_bits_digits", "n64_ranges_digits"}
    for variant in data["variants"].values():
        assert set(variant) == {
            "params",
            "templates_train",
            "templates_heldout",
            "informants",
            "team_heldout_acc_logreg_median",
            "team_heldout_acc_centroid_median",
            "chance",
        }
        for informant in variant["informants"].values():
            assert set(informant) == {"train_acc", "heldout_acc_logreg", "heldout_acc_centroid"}
            assert informant["train_acc"] == 1.0  # the encoder separates every training clue
        assert variant["team_heldout_acc_logreg_median"] > 3 * variant["chance"]
    # the N=64 generalisation benchmark is solvable from frozen embeddings on unseen phrasings
    assert data["variants"]["n64_ranges_digits"]["team_heldout_acc_logreg_median"] >= 0.8
