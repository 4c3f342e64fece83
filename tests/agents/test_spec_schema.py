"""Each option of the declared sections is declared once, on its dataclass field: the validator's checks
and the JSON Schema the designer's types come from both follow that declaration."""

from __future__ import annotations

import copy
import json
import math
from dataclasses import MISSING
from pathlib import Path

import jsonschema
import pytest

from agents.spec import load_spec, validate_spec
from agents.spec.algorithms import readers
from agents.spec.declared import rules
from agents.spec.nodes import (
    TRAINING_SECTIONS,
    AgentSpec,
    EdgeSpec,
    FallbackRuleSpec,
    LoraSpec,
    PhaseSpec,
    PlateauSpec,
    PolicyHeadSpec,
)
from agents.spec.schema import SECTIONS, main, schema_text, spec_schema

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "frontend" / "src" / "designer" / "spec.schema.json"
EXAMPLES = sorted((ROOT / "examples").glob("*.json"))

# A design-only team: no environment, so only the section under test can be wrong.
BASE = {
    "name": "t",
    "agents": [{"id": "a", "role": "custom", "prompt": "p"}, {"id": "b", "role": "custom", "prompt": "q"}],
    "edges": [{"source": "a", "target": "b"}],
    "fallback": {"rules": [{"keywords": ["k"], "route_to": "a"}]},
}

# where each declared object sits in a document: the keys from its top
PLACES: dict[tuple, type] = {
    **{(key,): cls for key, cls in SECTIONS.items() if key != "training"},
    ("agents", 0): AgentSpec,
    ("agents", 0, "lora"): LoraSpec,
    ("agents", 0, "policy_head"): PolicyHeadSpec,
    ("edges", 0): EdgeSpec,
    ("fallback", "rules", 0): FallbackRuleSpec,
}
TRAINING_OPTIONS = {
    r.name: r for cls in TRAINING_SECTIONS.values() for r in rules(cls) if r.name != "algorithm"
}
OPTIONS = [
    *((where, r) for where, cls in PLACES.items() for r in rules(cls) if r.kind != "other"),
    *((("training",), r) for r in TRAINING_OPTIONS.values() if r.kind != "other"),
]  # (place, rule) for every plain option; a training option under an algorithm that reads it


def _path(where: tuple, key: str) -> str:
    return "$" + "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in (*where, key))


def _doc(where: str | tuple, key: str, value: object) -> dict:
    doc = copy.deepcopy(BASE)
    node = doc
    for k in (where,) if isinstance(where, str) else where:
        node = node[k] if isinstance(k, int) else node.setdefault(k, {})
    if where in ("training", ("training",)) and readers(key):
        node["algorithm"] = readers(key)[0]  # a training option is checked under an algorithm that reads it
    node[key] = value
    return doc


def _schema_accepts(doc: dict) -> bool:
    shown = {k: v for k, v in doc.items() if k in spec_schema()["properties"]}  # the schema has no "name"
    return jsonschema.Draft202012Validator(spec_schema()).is_valid(shown)


def test_the_committed_schema_is_what_the_dataclasses_declare():
    assert COMMITTED.read_text(encoding="utf-8") == schema_text(), (
        "a spec option changed: run `python -m agents.spec.schema > frontend/src/designer/spec.schema.json` "
        "and `npm run gen:types` in frontend/"
    )


def test_the_module_prints_the_schema(capsys):
    assert main() == 0
    assert json.loads(capsys.readouterr().out) == spec_schema()


@pytest.mark.parametrize(
    "cls", [*PLACES.values(), *TRAINING_SECTIONS.values(), PlateauSpec, PhaseSpec], ids=lambda c: c.__name__
)
def test_every_plain_option_declares_its_range_or_choices_and_a_description(cls):
    for r in rules(cls):
        assert r.description, f"{cls.__name__}.{r.name} has no description"
        if r.kind in ("integer", "number"):
            assert r.lo is not None and r.hi is not None, f"{cls.__name__}.{r.name} has no range"
        if r.kind == "string":
            assert r.choices or r.max_len, f"{cls.__name__}.{r.name} has neither choices nor a length cap"


@pytest.mark.parametrize("where,rule", OPTIONS, ids=[_path(w, r.name) for w, r in OPTIONS])
def test_validator_and_schema_refuse_the_same_out_of_range_values(where, rule):
    path = _path(where, rule.name)
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
        doc = _doc(where, rule.name, value)
        assert [e.path for e in validate_spec(doc)] == [path], (value, validate_spec(doc))
        assert not _schema_accepts(doc), value
    # the declared default (a required option: the base document's value) passes both
    doc = _doc(where, rule.name, rule.default) if rule.default is not MISSING else copy.deepcopy(BASE)
    assert not [e for e in validate_spec(doc) if e.path == path]
    assert _schema_accepts(doc)


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
        ("backbone", "model", "", "must not be empty"),
        ("backbone", "pooling", "max", 'unknown value "max"; choose one of "mean", "cls", "last"'),
        ("backbone", "max_length", 7, "must be an integer between 8 and 8192, got 7"),
        ("communication", "enabled", 1, "must be true or false, got a number"),
        ("communication", "protocol", 3, "must be a string or null, got a number"),
        ("communication", "beta_end", 101, "must be a number in [0, 100], got 101"),
        (("agents", 0), "id", "Bad-Id", '"Bad-Id" is not valid: use [a-z][a-z0-9_]{0,39}'),
        (("agents", 0), "prompt", " ", "must not be empty"),
        (("agents", 0), "update_period", 0, "must be an integer between 1 and 100000, got 0"),
        (("agents", 0, "lora"), "alpha", 0, "must be a number in (0, 4096], got 0"),
        (("agents", 0, "lora"), "dropout", 1, "must be a number in [0, 1), got 1"),
        (("agents", 0, "policy_head"), "hidden", 4097, "must be an integer between 1 and 4096, got 4097"),
        (("edges", 0), "kind", "data", 'unknown value "data"; choose one of "communication", "dependency"'),
        (("edges", 0), "target", "", "must not be empty"),
        (("fallback", "rules", 0), "route_to", 7, "must be a string, got a number"),
        (
            "fallback",
            "kind",
            "rules",
            'unknown value "rules"; choose one of "none", "keyword_router", "scripted"',
        ),
    ],
)
def test_derived_checks_keep_their_messages(section, key, value, message):
    errors = validate_spec(_doc(section, key, value))
    where = (section,) if isinstance(section, str) else section
    assert [(e.path, e.message) for e in errors] == [(_path(where, key), message)]


def test_communication_noise_still_decays_from_its_defaults():
    assert [(e.path, e.message) for e in validate_spec(_doc("communication", "beta_end", 2))] == [
        (
            "$.communication.beta_end",
            "exploration noise decays: beta_end (2) must not exceed beta_start (1)",
        )
    ]
    assert validate_spec(_doc("communication", "beta_start", 0.01)) != []
    both = copy.deepcopy(BASE)
    both["communication"] = {"beta_start": 3, "beta_end": 2}
    assert validate_spec(both) == []


def test_an_agents_lora_loads_from_its_declared_options():
    doc = _doc(("agents", 0), "lora", {"r": 8, "alpha": 16, "target_modules": ["q_proj"]})
    lora = load_spec(doc).agents[0].lora
    assert lora == LoraSpec(r=8, alpha=16.0, dropout=0.0, target_modules=("q_proj",))
    assert isinstance(lora.alpha, float)


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
    sections = {k: doc[k] for k in spec_schema()["properties"] if k in doc}
    jsonschema.Draft202012Validator(spec_schema()).validate(sections)
