"""Each option of the declared sections is declared once, on its dataclass field: the validator's checks
and the JSON Schema the designer's types come from both follow that declaration."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import jsonschema
import pytest

from agents.spec import load_spec, validate_spec
from agents.spec.declared import rules
from agents.spec.nodes import PhaseSpec, PlateauSpec
from agents.spec.schema import SECTIONS, main, schema_text, spec_schema

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "frontend" / "src" / "designer" / "spec.schema.json"
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))

# A design-only team: no environment, so only the section under test can be wrong.
BASE = {"name": "t", "agents": [{"id": "a", "role": "custom", "prompt": "p"}]}

OPTIONS = [
    (key, r) for key, cls in SECTIONS.items() for r in rules(cls) if r.kind != "other"
]  # (section, rule) for every plain option


def _doc(section: str, key: str, value: object) -> dict:
    doc = copy.deepcopy(BASE)
    doc[section] = {key: value}
    return doc


def _schema_accepts(section: str, key: str, value: object) -> bool:
    return jsonschema.Draft202012Validator(spec_schema()).is_valid({section: {key: value}})


def test_the_committed_schema_is_what_the_dataclasses_declare():
    assert COMMITTED.read_text(encoding="utf-8") == schema_text(), (
        "a spec option changed: run `python -m agents.spec.schema > frontend/src/designer/spec.schema.json` "
        "and `npm run gen:types` in frontend/"
    )


def test_the_module_prints_the_schema(capsys):
    assert main() == 0
    assert json.loads(capsys.readouterr().out) == spec_schema()


@pytest.mark.parametrize("cls", [*SECTIONS.values(), PlateauSpec, PhaseSpec], ids=lambda c: c.__name__)
def test_every_plain_option_declares_its_range_or_choices_and_a_description(cls):
    for r in rules(cls):
        assert r.description, f"{cls.__name__}.{r.name} has no description"
        if r.kind in ("integer", "number"):
            assert r.lo is not None and r.hi is not None, f"{cls.__name__}.{r.name} has no range"
        if r.kind == "string":
            assert r.choices or r.max_len, f"{cls.__name__}.{r.name} has neither choices nor a length cap"


@pytest.mark.parametrize("section,rule", OPTIONS, ids=[f"{s}.{r.name}" for s, r in OPTIONS])
def test_validator_and_schema_refuse_the_same_out_of_range_values(section, rule):
    path = f"$.{section}.{rule.name}"
    if rule.kind in ("integer", "number"):
        bad = [rule.hi + 1, rule.lo - 1, "1"]
        if rule.lo_open:
            bad.append(rule.lo)
    elif rule.kind == "boolean":
        bad = [1, "true"]
    elif rule.choices:
        bad = ["not-a-choice", 1]
    else:
        bad = [1, "x" * (rule.max_len + 1)]
    if not rule.nullable:
        bad.append(None)
    for value in bad:
        errors = validate_spec(_doc(section, rule.name, value))
        assert [e.path for e in errors] == [path], (value, errors)
        assert not _schema_accepts(section, rule.name, value), value
    # the declared default passes both
    assert not [e for e in validate_spec(_doc(section, rule.name, rule.default)) if e.path == path]
    assert _schema_accepts(section, rule.name, rule.default)


@pytest.mark.parametrize(
    "section,key,value,message",
    [
        ("training", "entropy_coef", 11, "must be a number in [0, 10], got 11"),
        ("training", "entropy_coef", "x", "must be a number in [0, 10], got a string"),
        ("training", "lr", 0, "must be a number in (0, 1], got 0"),
        ("training", "grad_clip", math.inf, "must be a finite number in (0, 1e+06]"),
        ("training", "seed", -1, "must be an integer between 0 and 4294967295, got -1"),
        ("training", "device", "gpu", '"gpu" is not valid: use "cpu", "auto", "mps", "cuda" or "cuda:N"'),
        ("training", "device", "", "must not be empty"),
        (
            "training",
            "algorithm",
            "dqn",
            'unknown value "dqn"; choose one of "reinforce_comm", "mappo", "ippo"',
        ),
        ("training", "teacher_checkpoint", "x" * 1001, "is 1,001 characters long; the limit is 1,000"),
        ("training", "token_attention", "yes", "must be true or false, got a string"),
        ("resources", "processes", 0, "must be an integer between 1 and 64, got 0"),
        ("circuit_breaker", "step_limit", 1.5, "must be an integer between 1 and 1000000, got a number"),
        ("curriculum", "upper", 2, "must be a number in [0, 1], got 2"),
        ("evolution", "cycle_episodes", 0, "must be an integer between 1 and 100000000, got 0"),
    ],
)
def test_derived_checks_keep_their_messages(section, key, value, message):
    errors = validate_spec(_doc(section, key, value))
    assert [(e.path, e.message) for e in errors] == [(f"$.{section}.{key}", message)]


def test_plateau_options_are_checked_from_their_declaration():
    doc = copy.deepcopy(BASE)
    doc["evolution"] = {"plateau": {"cycles": 0, "min_improvement": 2}}
    assert [(e.path, e.message) for e in validate_spec(doc)] == [
        ("$.evolution.plateau.cycles", "must be an integer between 1 and 1000, got 0"),
        ("$.evolution.plateau.min_improvement", "must be a number in [0, 1], got 2"),
    ]


def test_an_empty_teacher_checkpoint_is_allowed():
    assert validate_spec(_doc("training", "teacher_checkpoint", "")) == []


def test_entropy_coef_null_means_the_algorithms_default_and_round_trips():
    spec = load_spec(BASE)
    assert spec.training.entropy_coef is None
    assert load_spec(spec.to_dict()) == spec
    assert load_spec(_doc("training", "entropy_coef", 0)).training.entropy_coef == 0.0
    assert isinstance(load_spec(_doc("training", "entropy_coef", 1)).training.entropy_coef, float)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_template_fits_the_schema(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    sections = {k: doc[k] for k in SECTIONS if k in doc}
    jsonschema.Draft202012Validator(spec_schema()).validate(sections)
