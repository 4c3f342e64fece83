"""bench/generation.py --quick: every documented key for the three backends, and under injected faults
every request answered in time with the template writing the faulty ones."""

from __future__ import annotations


def test_generation_quick(run_quick_bench):
    doc = run_quick_bench("generation", timeout=240)
    assert set(doc["backends"]) == {"template", "local", "openai_compatible"}
    for name, backend in doc["backends"].items():
        assert backend["replies_per_second"] > 0 and 0 < backend["p95_ms"] <= backend["max_ms"], name
        assert backend["answered_share"] == 1.0 and backend["requests"] > 0, name
    assert doc["backends"]["local"]["completion_tokens_per_reply"] > 0
    assert doc["backends"]["local"]["forward_batches"] < doc["backends"]["local"]["requests"] + 1  # batched
    # the template needs no model: it is much faster than even a tiny one
    assert doc["backends"]["template"]["replies_per_second"] > doc["backends"]["local"]["replies_per_second"]
    faults = doc["faults"]
    assert faults["requests"] == 20 and faults["answered_share"] == 1.0
    assert 0.5 <= faults["fallback_share"] < 1.0  # four of the cycle's five behaviours are faults
    assert {"generation_timeout", "generation_error", "empty_answer", "garbage"} <= set(faults["fault_kinds"])
    assert faults["max_ms"] < faults["deadline_s"] * 1000 + 250
