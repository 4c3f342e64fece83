"""bench/probe_tuned_encoder.py: --quick runs end to end and writes every documented key; the contrastive
pairs regress on the overlap of intent sets."""

from __future__ import annotations

import random

import pytest

from bench.probe_tuned_encoder import ARMS, pairs_of


def test_each_ticket_gets_a_same_set_partner_and_a_random_one():
    rows = [{"text": str(i), "intents": s} for i, s in enumerate([["a"], ["a"], ["b"], ["a", "b"]])]
    pairs = pairs_of(rows, random.Random(0))
    assert (0, 1, 1.0) in pairs and (1, 0, 1.0) in pairs  # the only other ticket with the same set
    assert sum(i == 2 for i, _, _ in pairs) == 1  # no other "b": only the random partner
    for i, j, target in pairs:
        a, b = set(rows[i]["intents"]), set(rows[j]["intents"])
        assert target == pytest.approx(len(a & b) / len(a | b))


@pytest.mark.slow
def test_quick_probe_writes_every_key(run_quick_bench):
    result = run_quick_bench("probe_tuned_encoder")
    it = result["it_helpdesk"]
    assert set(it["rows"]) == {"train", "holdout", "test", "dev"} and it["frozen_encode_cpu_s"] >= 0
    assert set(it["mean"]) == set(ARMS[1:]) and 0 <= it["plain"]["test"] <= 1
    (seed,) = it["seeds"]
    for arm in ("bce", "setfit"):
        assert seed["selection"][arm]["epoch"] in (0, 1) and 0 <= seed[arm]["dev"] <= 1
        assert set(seed["cpu_s"][arm]) == {"fine_tune", "dev_encode", "encode_all"}
