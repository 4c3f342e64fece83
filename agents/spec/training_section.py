"""The training section checked as what it is: a pydantic discriminated union on `algorithm`
(`agents.spec.nodes.TrainingSpec`), with pydantic's errors worded as the validator words every other
section's, at the same paths (docs/decisions/0016-the-algorithm-declares-its-options.md).

pydantic decides what is wrong (the type, range, choice or pattern each field declares, a key the chosen
algorithm's section does not have); `training_errors` turns each of its errors into today's message:

- a field's error is worded from the field's declared rule, as every declared option is (`_Checks.option`);
- a key another algorithm reads is said to be that algorithm's (its options model's `UNREAD`: "error"
  refuses it, "warning" lets the run train and `agents.spec.advice` says it changes nothing);
- any other key is unknown, with the keys the chosen algorithm's section allows;
- an unknown `algorithm` is worded as any bad choice, and the common options are still checked.
"""

from __future__ import annotations

import json
from dataclasses import MISSING, fields
from typing import Any

from pydantic import TypeAdapter, ValidationError

from agents.spec.algorithms import ALGORITHMS, DEFAULT_ALGORITHM, options_model, readers
from agents.spec.checks import _BAD, _allowed_keys, _Checks, _key_path, _quote_list
from agents.spec.declared import rule
from agents.spec.nodes import TRAINING_SECTIONS, CommonTraining, TrainingSpec

__all__ = ["training_errors", "unread_kind", "ALL_TRAINING_OPTIONS"]

_ADAPTER = TypeAdapter(TrainingSpec)
_COMMON = TypeAdapter(CommonTraining)

ALL_TRAINING_OPTIONS: tuple[str, ...] = tuple(
    dict.fromkeys(f.name for cls in TRAINING_SECTIONS.values() for f in fields(cls))
)
"""Every option some algorithm's training section has, in section order."""


def unread_kind(algorithm: str, key: str) -> str | None:
    """What an option of another algorithm's options model is under `algorithm` ("error" or "warning",
    its model's `UNREAD`); None when `algorithm` reads it or no options model declares it."""
    found = readers(key)
    if not found or algorithm in found:
        return None
    return options_model(found[0]).UNREAD


def training_errors(checks: _Checks, sec: dict, path: str) -> dict[str, Any]:
    """Check the training section `sec` (an object) and report each problem at its path on `checks`.

    Returns each option of every algorithm's section: its value, MISSING when the chosen algorithm's
    section does not hold it, or _BAD when refused (the cross-field rules then skip it)."""
    algorithm = sec.get("algorithm", DEFAULT_ALGORITHM)
    known = isinstance(algorithm, str) and algorithm in ALGORITHMS
    section = TRAINING_SECTIONS[algorithm] if known else CommonTraining
    doc = {**sec, "algorithm": algorithm if known else DEFAULT_ALGORITHM}
    values = {
        name: sec[name] if name in sec and name in _names(section) else MISSING
        for name in ALL_TRAINING_OPTIONS
    }
    if not known:
        values["algorithm"] = checks.option(sec, path, rule(CommonTraining, "algorithm"))
        doc = {
            k: v for k, v in doc.items() if k in _names(CommonTraining)
        }  # the others wait for a valid algorithm
    adapter = _ADAPTER if known else _COMMON
    try:
        adapter.validate_json(json.dumps(doc, allow_nan=True))
    except ValidationError as exc:
        for error in exc.errors():
            key = error["loc"][-1] if error["loc"] else None
            if isinstance(key, str) and key != "algorithm":
                values[key] = _BAD
                _report(checks, sec, path, section, key, error["type"], algorithm)
    return values


def _names(cls: type) -> set[str]:
    return {f.name for f in fields(cls)}


def _report(
    checks: _Checks, sec: dict, path: str, section: type, key: str, kind: str, algorithm: Any
) -> None:
    """One pydantic error at `path.key`, in the validator's words."""
    if kind not in ("unexpected_keyword_argument", "extra_forbidden"):
        before = len(checks.errors) + checks.dropped
        checks.option(sec, path, rule(section, key))  # the declared rule's words for this field
        if (
            len(checks.errors) + checks.dropped == before
        ):  # pragma: no cover - a rule pydantic reads otherwise
            checks.err(_key_path(path, key), f"is not valid ({kind})")
        return
    unread = unread_kind(algorithm, key) if isinstance(algorithm, str) and algorithm in ALGORITHMS else None
    if unread == "warning":
        return  # it trains; the advice says the option changes nothing
    if unread == "error":
        model = options_model(readers(key)[0])
        message = f"a {model.LABEL} setting: set algorithm to {' or '.join(readers(key))}, not {algorithm!r}"
        checks.err(_key_path(path, key), message)
        return
    checks.err(_key_path(path, key), f"unknown key; allowed keys here: {_quote_list(_allowed_keys(section))}")
