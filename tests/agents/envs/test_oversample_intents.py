"""``min_rows_per_intent``: rare intents' training tickets repeated up to a floor (whole copies, then a
seeded remainder); held-out files never; a bad value is a spec error at its path."""

from __future__ import annotations

import json
from pathlib import Path

from agents import places
from agents.envs.customer_service.env import CustomerServiceEnv
from agents.envs.customer_service.oversample import held_out, intent_counts, oversample
from agents.envs.customer_service.tickets import Ticket, load_tickets
from agents.spec import load_spec, validate_spec
from training.mappo.from_spec import env_factory

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "customer_service.json"


def tickets(intent: str, n: int, prefix: str) -> list[Ticket]:
    return [Ticket(id=f"{prefix}{k}", text=f"{intent} text {k}", intents=(intent,)) for k in range(n)]


def test_rare_intents_are_brought_up_to_the_floor_with_whole_copies_then_a_seeded_remainder():
    rows = [*tickets("complaint", 50, "c"), *tickets("recommendation", 7, "r")]
    rows.append(Ticket(id="both", text="two", intents=("complaint", "recommendation")))
    out = oversample(rows, 20)
    assert out[: len(rows)] == rows  # the file's own rows first, unchanged
    copied = [t.id.split("~")[0] for t in out[len(rows) :]]
    # a copy of 'both' counts for complaint too; complaint itself (51 rows) is never copied
    assert intent_counts(out) == {"complaint": 51 + copied.count("both"), "recommendation": 20}
    # 8 rows hold recommendation: 12 more = one whole copy of each (8) and a drawn remainder of 4
    assert sorted(set(copied)) == sorted({*(f"r{k}" for k in range(7)), "both"})
    assert all(copied.count(i) in (1, 2) for i in set(copied)) and len(copied) == 12
    assert len({t.id for t in out}) == len(out)  # ids stay unique
    assert oversample(rows, 20) == out  # deterministic
    assert oversample(rows, 0) == rows and oversample(rows, 8) == rows  # off, or every intent at the floor


def test_the_environment_oversamples_its_training_file_never_a_held_out_one(tmp_path):
    rows = [*tickets("complaint", 30, "c"), *tickets("recommendation", 4, "r")]
    for name in ("mine.jsonl", "mine.test.jsonl", "mine.validation.jsonl"):
        (tmp_path / name).write_text("\n".join(t.to_json() for t in rows) + "\n", encoding="utf-8")
    train = CustomerServiceEnv(str(tmp_path / "mine.jsonl"), min_rows_per_intent=10)
    assert intent_counts(train.tickets) == {"complaint": 30, "recommendation": 10}
    for held in ("mine.test.jsonl", "mine.validation.jsonl"):
        env = CustomerServiceEnv(str(tmp_path / held), min_rows_per_intent=10)
        assert intent_counts(env.tickets) == {"complaint": 30, "recommendation": 4}
    assert len(CustomerServiceEnv("test", min_rows_per_intent=1000).tickets) == len(load_tickets("test"))
    assert held_out("validation") and held_out("shop.out_of_scope") and not held_out("shop")


def test_a_specs_training_environment_is_oversampled_and_its_dev_split_is_not(tmp_path):
    rows = [*tickets("complaint", 30, "c"), *tickets("recommendation", 3, "r")]
    for name in ("shop.jsonl", "shop.validation.jsonl"):  # a dataset with its own dev split, as uploaded
        (tmp_path / name).write_text("\n".join(t.to_json() for t in rows) + "\n", encoding="utf-8")
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    doc["environment"]["params"] |= {"tickets": "shop", "min_rows_per_intent": 12}
    before = places.places()
    places.configure(None, tmp_path, None, None)
    try:
        make = env_factory(load_spec(doc))
        assert intent_counts(make("train").tickets) == {"complaint": 30, "recommendation": 12}
        assert intent_counts(make("validation").tickets) == {"complaint": 30, "recommendation": 3}
    finally:
        places.configure(before.models_dir, before.tickets_dir, before.runs_dir, before.datasets_dir)


def test_a_bad_floor_is_a_spec_error_at_its_path():
    doc = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    for bad in (-1, "many", 2.5):
        doc["environment"]["params"]["min_rows_per_intent"] = bad
        assert "$.environment.params.min_rows_per_intent" in {e.path for e in validate_spec(doc)}, bad
    doc["environment"]["params"]["min_rows_per_intent"] = 100
    assert validate_spec(doc) == []
