"""bench/verdicts.py --quick: every documented key per template, each arm on the same episodes, the
advisor's prediction beside the verdict."""

from __future__ import annotations

import pytest


@pytest.mark.slow  # trains four tiny arms and loads MiniLM in a subprocess: ~1 min on the shared machine
def test_quick_verdicts_write_every_key(run_quick_bench):
    doc = run_quick_bench("verdicts", timeout=400)
    assert doc["quick"] is True and doc["episodes"] == 8
    code = doc["verdicts"]["code_generation"]
    for key in ("rules", "imitation", "ippo", "mappo", "mappo_ci", "cost", "advisor", "verdict", "outcome"):
        assert key in code, key
    low, high = code["mappo_ci"]
    assert 0.0 <= low <= code["mappo"] <= high <= 1.0
    assert set(code["cost"]) == {"rules", "imitation", "ippo", "mappo"}
    assert code["rules"] > 0.3  # the scripted pipeline solves test tasks: the evaluation plays real episodes
    assert code["advisor"]["recommendation"] == "marl"
    assert code["outcome"] in {"marl_paid", "marl_paid_costlier", "no_better", "worse"} and code["verdict"]
    assert {a["episodes"] for a in code["arms"]} == {8}  # every arm on the same eight episodes
    guess = doc["verdicts"]["number_guessing"]
    assert {"alone", "reinforce_comm", "reinforce_comm_ci", "messages_per_episode"} <= set(guess)
    assert guess["messages_per_episode"]["alone"] == 0.0  # its messages are cut
    assert guess["advisor"]["recommendation"] == "marl"
