"""The generated out-of-scope tickets (agents/envs/customer_service/out_of_scope.py): deterministic, train and
dev worded apart, nothing shared with the hand-written out-of-scope sets, and offered by the routing interface
to the shipped catalogue only (a catalogue of one's own may have those requests as intents)."""

from __future__ import annotations

import json
from pathlib import Path

from agents.envs.customer_service import interface
from agents.envs.customer_service.out_of_scope import generate_out_of_scope

DATA = Path(__file__).resolve().parents[3] / "data" / "customer_service"


def texts(name: str) -> set[str]:
    return {json.loads(line)["text"] for line in (DATA / name).read_text().splitlines() if line.strip()}


def test_generated_rows_are_deterministic_and_have_no_intent():
    first = generate_out_of_scope(60, seed=3)
    assert first == generate_out_of_scope(60, seed=3) and first != generate_out_of_scope(60, seed=4)
    assert all(row["intents"] == [] and row["text"].strip() for row in first)
    assert len({row["kind"] for row in first}) >= 10  # dealt over every kind


def test_the_shipped_files_are_the_generator_output_and_never_the_hand_written_sets():
    for split, n in (("train", 600), ("dev", 200)):
        rows = [
            json.loads(line)
            for line in (DATA / f"out_of_scope_generated_{split}.jsonl").read_text().splitlines()
        ]
        assert rows == generate_out_of_scope(n, 0, split)
    hand = (
        texts("out_of_scope_dev.jsonl")
        | texts("out_of_scope_test.jsonl")
        | texts("out_of_scope_voices.jsonl")
    )
    generated = texts("out_of_scope_generated_train.jsonl") | texts("out_of_scope_generated_dev.jsonl")
    assert not hand & generated
    assert not texts("out_of_scope_generated_train.jsonl") & texts("out_of_scope_generated_dev.jsonl")


def test_the_interface_offers_them_to_the_shipped_catalogue_only():
    shipped = interface.out_of_scope_tickets({})
    assert len(shipped) == 600 and all(row["intents"] == [] for row in shipped)
    own = {"intents": [{"name": "billing", "description": "Charges, invoices and refunds of payments."}]}
    assert interface.out_of_scope_tickets(own) == []
