"""bench/evolve.py --train --traffic: the evolution benchmark on a routing dataset it is only given as files
(the IT-helpdesk rows): the champion trained through the product's dataset path, the traffic's tickets in a
seeded order with an unseen share never played, and the drift section's keys under evolve.custom."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.evolve import load_jsonl
from bench.evolve_domain import traffic_split

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "it_helpdesk"


def test_the_traffic_is_the_files_tickets_in_a_seeded_order_with_an_unseen_quarter_set_aside():
    tickets = load_jsonl(DATA / "test.jsonl")
    unseen, stream = traffic_split(tickets, None, seed=0)
    assert len(unseen) == len(tickets) // 4 and len(unseen) + len(stream) == len(tickets)
    assert sorted(t["text"] for t in unseen + stream) == sorted(t["text"] for t in tickets)
    assert traffic_split(tickets, None, seed=0) == (unseen, stream)
    assert traffic_split(tickets, None, seed=1) != (unseen, stream)
    assert len(traffic_split(tickets, 35, seed=0)[0]) == 35
    with pytest.raises(SystemExit):
        traffic_split(tickets, len(tickets), seed=0)  # nothing left to review


@pytest.mark.timeout(240)
def test_evolve_quick_on_a_dataset_given_as_files(tmp_path):
    out = tmp_path / "evolve.json"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "MASE_DATA_DIR")}
    files = ["--train", DATA / "train.jsonl", "--dev", DATA / "dev.jsonl", "--traffic", DATA / "test.jsonl"]
    command = [sys.executable, ROOT / "bench" / "evolve.py", "--quick", *files, "--sections", "drift"]
    proc = subprocess.run(
        [*map(str, command), "--catalogue", str(DATA / "catalogue.json"), "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=230,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    custom = json.loads(out.read_text())["evolve"]["custom"]
    assert custom["champion"]["intents"] == 12 and custom["champion"]["rows"]["refused"] == 0
    assert custom["traffic"]["unseen"] == 6 and custom["traffic"]["stream"] == 14
    drift = custom["drift"]["4"]
    assert 1 <= drift["generations"] == len(drift["runs"]) and drift["corrections"] <= 4
    assert (
        len(drift["exact_match_by_generation"])
        == len(drift["test_by_generation"])
        == drift["generations"] + 1
    )
    for run in drift["runs"]:
        assert run["start"].startswith("taught by generation") and run["reason"]
        assert run["dev_tickets"] > 0  # the uploaded dataset's dev split, kept by the challenger
        assert 0.0 <= run["challenger_unseen"] <= 1.0
