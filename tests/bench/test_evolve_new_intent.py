"""bench/evolve.py --sections new_intent: the traffic holds the new intent at the declared share, and the
quick run goes through the product (the intent accepted on the canvas, corrections naming it accepted,
challengers that learn it) with every documented key."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.evolve import load_jsonl
from bench.evolve_new_intent import DATA, INTENT, traffic

ROOT = Path(__file__).resolve().parents[2]


def test_the_new_intent_is_the_declared_share_of_the_stream_and_others_are_never_played():
    known, new = load_jsonl(DATA / "test.jsonl"), load_jsonl(DATA / "new_intent_train.jsonl")
    stream, others = traffic(known, new, 0.2, seed=0)
    mine = [t for t in stream if INTENT["name"] in t["intents"]]
    assert len(mine) == len(new) == 60 and len(stream) == 300
    assert len(others) == len(known) - 240
    assert not {t["text"] for t in others} & {t["text"] for t in stream}
    assert 5 <= sum(INTENT["name"] in t["intents"] for t in stream[:50]) <= 16  # mixed, not bunched
    assert traffic(known, new, 0.2, seed=0) == (stream, others)


@pytest.mark.services
@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_evolve_new_intent_quick(tmp_path):
    out = tmp_path / "evolve.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "MASE_DATA_DIR")}
    command = [sys.executable, str(ROOT / "bench" / "evolve.py"), "--quick", "--sections", "new_intent"]
    proc = subprocess.run(
        [*command, "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1150
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(out.read_text())["evolve"]["new_intent"]
    assert doc["correction_allowed"] and doc["accepted_intents"][-1] == INTENT["name"]
    assert doc["generations"] == 2 and doc["corrections"] == 4
    for key in ("recall_by_generation", "others_by_generation", "served_recall_by_generation"):
        assert len(doc[key]) == 3 and all(0.0 <= x <= 1.0 for x in doc[key]), key
    assert doc["recall_by_generation"][0] == 0.0  # the champion never names an intent it does not know
    for run in doc["runs"]:
        assert "catalogue gained cancel_subscription" in run["start"] and run["reason"]
