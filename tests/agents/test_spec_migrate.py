"""A spec stored before the customer-service start options (`reader`, `reader_epochs`, `warm_start_episodes`,
`warm_start_epochs`) became that environment's parameters, or before `training` became a union on
`algorithm`, reads as the same spec (`agents.spec.migrate`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from agents.spec import load_spec, validate_spec
from agents.spec.migrate import CUSTOMER_SERVICE_START, migrate
from agents.spec.nodes import TRAINING_SECTIONS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))
STORED = sorted((ROOT / "tests" / "fixtures" / "stored_specs").glob("*.json"))
"""Drafts as the version before the move saved them (`TeamSpec.to_dict`: every option written out)."""


def earlier_shape(doc: dict) -> dict:
    """``doc`` as the version before the move stored it: the start options in ``training``, every one
    written out (under another environment at the defaults it wrote)."""
    old = json.loads(json.dumps(doc))
    env = old.get("environment") or {}
    params = env.get("params", {}) if env.get("name") == "customer_service" else {}
    start = {k: params.pop(k, default) for k, default in CUSTOMER_SERVICE_START.items()}
    old.setdefault("training", {}).update(start)
    return old


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_template_stored_in_the_earlier_shape_loads_as_the_same_spec(path):
    doc = json.loads(path.read_text())
    old = earlier_shape(doc)
    assert not set(CUSTOMER_SERVICE_START) & set(
        doc.get("training", {})
    )  # the templates are of today's shape
    assert validate_spec(old) == [] and validate_spec(old, confined=True) == validate_spec(doc, confined=True)
    assert load_spec(old) == load_spec(doc)
    assert migrate(migrate(old)) == migrate(old)  # a migrated document passes through unchanged


ADDED_SINCE = ("actor_evidence",)  # decision 0030: the customer-service template's actors read 0/1 evidence


@pytest.mark.parametrize("path", STORED, ids=lambda p: p.stem)
def test_a_draft_stored_by_the_earlier_version_loads_and_saves_in_todays_shape(path):
    stored = json.loads(path.read_text())
    assert set(CUSTOMER_SERVICE_START) <= set(stored["training"])
    spec = load_spec(stored)
    saved = spec.to_dict()
    assert not set(CUSTOMER_SERVICE_START) & set(saved["training"])
    assert load_spec(saved) == spec
    template = json.loads((ROOT / "examples" / path.name.replace("_2026-12-05", "")).read_text())
    for key in ADDED_SINCE:  # parameters the templates took up after that version
        template.get("environment", {}).get("params", {}).pop(key, None)
    assert spec == load_spec(template)  # the stored drafts are the shipped templates as that version saved them


def test_the_customer_service_draft_keeps_its_start_as_environment_parameters():
    stored = json.loads((ROOT / "tests/fixtures/stored_specs/customer_service_2026-12-05.json").read_text())
    params = load_spec(stored).environment.params
    assert {k: params[k] for k in CUSTOMER_SERVICE_START} == {
        "reader": "clause_keywords",
        "reader_epochs": 300,
        "warm_start_episodes": 1200,
        "warm_start_epochs": 16,
    }


def test_a_value_in_the_parameters_wins_over_a_stale_one_in_training():
    """The designer's Environment tab edits the parameter; a stale key of a draft it loaded must not undo it."""
    doc = json.loads((ROOT / "examples" / "customer_service.json").read_text())
    doc["environment"]["params"]["reader"] = "whole"
    doc["training"]["reader"] = "clause"
    assert load_spec(doc).environment.params["reader"] == "whole"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_template_stored_flat_before_the_union_loads_as_the_same_spec(path):
    """Before `training` became a union on `algorithm` a saved draft wrote every algorithm's options out:
    those the template's algorithm does not read, at their defaults, are dropped on read."""
    doc = json.loads(path.read_text())
    every = {f.name: f.default for cls in TRAINING_SECTIONS.values() for f in dataclasses.fields(cls)}
    old = earlier_shape(doc)
    old["training"] = {**every, **old["training"]}
    assert validate_spec(old) == [] and load_spec(old) == load_spec(doc)
    assert set(migrate(old)["training"]) <= {
        f.name for f in dataclasses.fields(type(load_spec(doc).training))
    }
    assert migrate(migrate(old)) == migrate(old)
