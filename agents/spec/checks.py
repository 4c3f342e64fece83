"""The validator's primitives: error collection, the size guard, and the checks of one object or scalar.

Each check returns the value, its default when absent, or `_BAD` when invalid (cross-field checks then
skip it). The sections of a document are checked in `team_checks` and `run_checks`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import MISSING, fields
from typing import Any

from agents.errors import SpecError
from agents.spec.declared import Rule, rules
from agents.spec.options import LIMITS

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BAD = object()  # marks a value that failed its check (cross-field checks then skip it)


def _key_path(path: str, key: Any) -> str:
    if isinstance(key, str) and _IDENT.match(key):
        return f"{path}.{key}"
    text = key if isinstance(key, str) else repr(key)
    return f"{path}[{json.dumps(text[:60])}]"


def json_type_name(value: Any) -> str:
    """How a JSON value's type reads in an error message ("a string", "an array", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__} (not JSON)"


def _quote_list(items: Iterable[str], limit: int = 20) -> str:
    items = list(items)
    shown = ", ".join(json.dumps(i) for i in items[:limit])
    return shown + (f", … ({len(items) - limit} more)" if len(items) > limit else "")


def _allowed_keys(cls: type) -> list[str]:
    return [f.name for f in fields(cls)]


class _Checks:
    """Collects every error of one document. Each check returns the value, its default, or _BAD."""

    def __init__(self, confined: bool = False) -> None:
        self.errors: list[SpecError] = []
        self.dropped = 0
        self.confined = confined  # a server: look at no path the document names (agents.places)

    def err(self, path: str, message: str) -> None:
        if len(self.errors) < LIMITS["errors"]:
            self.errors.append(SpecError(path, message))
        else:
            self.dropped += 1

    # -- structure -------------------------------------------------------------------------------

    def guard_size(self, doc: Any) -> bool:
        """Depth, value count, key types and serialised size, iteratively (no recursion to exhaust)."""
        stack: list[tuple[Any, str, int]] = [(doc, "$", 0)]
        count = 0
        ok = True
        while stack:
            value, path, depth = stack.pop()
            count += 1
            if count > LIMITS["values"]:
                self.err("$", f"document holds more than {LIMITS['values']:,} values; it is far too large")
                return False
            if depth > LIMITS["depth"]:
                self.err(path, f"nested deeper than {LIMITS['depth']} levels; flatten this value")
                ok = False
                continue
            if isinstance(value, dict):
                for k, v in value.items():
                    if not isinstance(k, str):
                        self.err(_key_path(path, k), "object keys must be strings")
                        ok = False
                        continue
                    stack.append((v, _key_path(path, k), depth + 1))
            elif isinstance(value, (list, tuple)):
                for i, v in enumerate(value):
                    stack.append((v, f"{path}[{i}]", depth + 1))
            elif isinstance(value, float) and not math.isfinite(value):
                pass  # reported by the field check, with a message about that field
            elif value is not None and not isinstance(value, (str, int, float, bool)):
                self.err(path, f"must be a JSON value, got {json_type_name(value)}")
                ok = False
        if not ok:
            return False
        try:
            size = len(json.dumps(doc, ensure_ascii=False, allow_nan=True).encode("utf-8"))
        except (TypeError, ValueError, RecursionError) as exc:  # pragma: no cover - guarded above
            self.err("$", f"document is not serialisable as JSON: {exc}")
            return False
        if size > LIMITS["document_bytes"]:
            self.err("$", f"document is {size:,} bytes serialised; the limit is {LIMITS['document_bytes']:,}")
            return False
        return True

    def obj(self, value: Any, path: str, allowed: Iterable[str], required: Iterable[str] = ()) -> dict | None:
        """An object with only `allowed` keys and all `required` ones; None when not an object."""
        if not isinstance(value, dict):
            self.err(path, f"must be an object, got {json_type_name(value)}")
            return None
        allowed = list(allowed)
        for k in value:
            if k not in allowed:
                self.err(_key_path(path, k), f"unknown key; allowed keys here: {_quote_list(allowed)}")
        for k in required:
            if k not in value:
                self.err(_key_path(path, k), "is required")
        return value

    def section(self, doc: dict, key: str, cls: type, path: str = "$") -> dict | None:
        """An optional sub-object of `doc` checked against `cls`'s fields; {} when absent."""
        if key not in doc:
            return {}
        return self.obj(doc[key], _key_path(path, key), _allowed_keys(cls))

    # -- scalars (return value if valid, default if absent, _BAD if invalid) -------------------------

    def integer(
        self, sec: dict, path: str, key: str, lo: int, hi: int, default: Any = MISSING, nullable: bool = False
    ) -> Any:
        if key not in sec:
            return default
        v, p = sec[key], _key_path(path, key)
        if v is None and nullable:
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            self.err(p, f"must be an integer between {lo} and {hi}, got {json_type_name(v)}")
            return _BAD
        if not lo <= v <= hi:
            self.err(
                p,
                f"must be an integer between {lo} and {hi}, got {v if abs(v) < 10**12 else 'a huge number'}",
            )
            return _BAD
        return v

    def number(
        self,
        sec: dict,
        path: str,
        key: str,
        lo: float,
        hi: float,
        default: Any = MISSING,
        *,
        lo_open: bool = False,
        hi_open: bool = False,
        nullable: bool = False,
    ) -> Any:
        if key not in sec:
            return default
        v, p = sec[key], _key_path(path, key)
        if v is None and nullable:
            return None
        lo_b, hi_b = ("(" if lo_open else "["), (")" if hi_open else "]")
        rng = f"in {lo_b}{lo:g}, {hi:g}{hi_b}"
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.err(p, f"must be a number {rng}, got {json_type_name(v)}")
            return _BAD
        try:
            fv = float(v)
        except OverflowError:
            fv = math.inf
        if not math.isfinite(fv):
            self.err(p, f"must be a finite number {rng}")
            return _BAD
        if fv < lo or fv > hi or (lo_open and fv == lo) or (hi_open and fv == hi):
            self.err(p, f"must be a number {rng}, got {fv:g}")
            return _BAD
        return fv

    def boolean(self, sec: dict, path: str, key: str, default: Any = MISSING) -> Any:
        if key not in sec:
            return default
        if not isinstance(sec[key], bool):
            self.err(_key_path(path, key), f"must be true or false, got {json_type_name(sec[key])}")
            return _BAD
        return sec[key]

    def string(
        self,
        sec: dict,
        path: str,
        key: str,
        *,
        max_len: int,
        default: Any = MISSING,
        choices: Iterable[str] | None = None,
        pattern: re.Pattern | None = None,
        pattern_hint: str = "",
        nullable: bool = False,
        allow_empty: bool = False,
    ) -> Any:
        if key not in sec:
            return default
        v, p = sec[key], _key_path(path, key)
        if v is None and nullable:
            return None
        if not isinstance(v, str):
            self.err(p, f"must be a string{' or null' if nullable else ''}, got {json_type_name(v)}")
            return _BAD
        if choices is not None:
            choices = list(choices)
            if v not in choices:
                shown = v if len(v) <= 60 else v[:60] + "…"
                self.err(p, f"unknown value {json.dumps(shown)}; choose one of {_quote_list(choices)}")
                return _BAD
            return v
        if len(v) > max_len:
            self.err(p, f"is {len(v):,} characters long; the limit is {max_len:,}")
            return _BAD
        if not allow_empty and not v.strip():
            self.err(p, "must not be empty")
            return _BAD
        if pattern is not None and not pattern.match(v):
            shown = v if len(v) <= 60 else v[:60] + "…"
            self.err(p, f"{json.dumps(shown)} is not valid: {pattern_hint}")
            return _BAD
        return v

    def declared(self, sec: dict, path: str, cls: type) -> dict[str, Any]:
        """Each plain option of `cls` (number, integer, boolean, string) checked against what its field
        declares (`agents.spec.declared`): key -> value, MISSING when absent, or _BAD. Arrays and objects
        are left to the section's own checks, as are the cross-field rules."""
        return {r.name: self.option(sec, path, r) for r in rules(cls) if r.kind != "other"}

    def option(self, sec: dict, path: str, r: Rule) -> Any:
        """One option checked against its declared rule."""
        if r.kind == "boolean":
            return self.boolean(sec, path, r.name)
        if r.kind == "integer":
            return self.integer(sec, path, r.name, r.lo, r.hi, nullable=r.nullable)
        if r.kind == "number":
            return self.number(
                sec, path, r.name, r.lo, r.hi, lo_open=r.lo_open, hi_open=r.hi_open, nullable=r.nullable
            )
        return self.string(
            sec,
            path,
            r.name,
            # a choice needs no cap of its own; other strings declare one (tests/agents/test_spec_schema.py)
            max_len=r.max_len if r.max_len is not None else LIMITS["document_bytes"],
            choices=r.choices,
            pattern=r.pattern,
            pattern_hint=r.pattern_hint,
            nullable=r.nullable,
            allow_empty=r.min_len == 0,
        )

    def array(self, sec: dict, path: str, key: str, max_items: int, min_items: int = 0) -> list | None:
        """A list within its size cap; None when absent or invalid (items are not checked then)."""
        if key not in sec:
            return None
        v, p = sec[key], _key_path(path, key)
        if not isinstance(v, list):
            self.err(p, f"must be an array, got {json_type_name(v)}")
            return None
        if len(v) > max_items:
            self.err(p, f"has {len(v):,} items; the limit is {max_items:,}")
            return None
        if len(v) < min_items:
            self.err(p, f"needs at least {min_items} item{'s' if min_items > 1 else ''}")
            return None
        return v
