"""The episode budget is `training.episodes` alone: `with_episodes` writes it there, on a document (the
web launch's override) or on a loaded spec (`training.api.train`'s `episodes`) alike."""

from __future__ import annotations

import json
from pathlib import Path

from agents.spec import load_spec
from agents.spec.budget import with_episodes

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service.json"


def test_a_document_and_its_loaded_spec_get_the_same_budget():
    doc = json.loads(EXAMPLE.read_text())
    changed = with_episodes(doc, 64)
    assert changed["training"]["episodes"] == 64 and doc["training"]["episodes"] != 64  # a new document
    assert load_spec(changed) == with_episodes(load_spec(doc), 64)
    assert with_episodes(load_spec(doc), None) == load_spec(doc) and with_episodes(doc, None) is doc


def test_a_document_without_training_gets_one_and_a_broken_one_is_left_to_the_validator():
    doc = json.loads(EXAMPLE.read_text())
    doc.pop("training")
    assert with_episodes(doc, 10)["training"] == {"episodes": 10}
    doc["training"] = [1]
    assert with_episodes(doc, 10) is doc
