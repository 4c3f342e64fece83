"""What a spec option declares about itself, read from its dataclass field: the JSON type, whether null
is allowed, the range, the choices, the length and pattern of a string, and the default.

An option is declared once, on its field in `agents.spec.nodes`, with pydantic v2 metadata:

    entropy_coef: Annotated[float | None, Field(ge=0, le=10, description="...")] = None
    reader: Annotated[Literal[READERS], Field(description="...")] = "whole"

The validator (`_Checks.declared`), the loader (`build`) and the JSON Schema (`agents.spec.schema`) all
read it from there, so an option's rules are never spelled twice.
"""

from __future__ import annotations

import functools
import re
import types
from dataclasses import MISSING, dataclass, field, fields
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import annotated_types as at
from pydantic.fields import FieldInfo

__all__ = ["Rule", "rule", "rules"]


@dataclass(frozen=True)
class Rule:
    """One option's declared checks. `kind` is "integer", "number", "boolean", "string", or "other"
    (an array or an object: checked by hand, never by the generic loop)."""

    name: str
    kind: str
    nullable: bool = False
    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False
    choices: tuple[str, ...] | None = None
    min_len: int = 0
    max_len: int | None = None
    pattern: re.Pattern | None = None
    pattern_hint: str = ""
    default: Any = field(default_factory=lambda: MISSING)  # MISSING: the field has no plain default
    description: str = ""


def _unwrap(hint: Any) -> tuple[Any, list[Any]]:
    """(the bare type, the Annotated metadata) of one field's type hint."""
    meta: list[Any] = []
    while get_origin(hint) is Annotated:
        hint, *extra = get_args(hint)
        meta.extend(extra)
    return hint, meta


def _without_none(hint: Any) -> tuple[Any, bool]:
    """`X | None` -> (X, True); anything else -> (hint, False)."""
    if get_origin(hint) in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) < len(get_args(hint)) and len(args) == 1:
            return _unwrap(args[0])[0], True
    return hint, False


def _kind(hint: Any) -> tuple[str, tuple[str, ...] | None]:
    if get_origin(hint) is Literal:
        return "string", tuple(get_args(hint))
    if hint is bool:  # before int: a JSON boolean is no integer
        return "boolean", None
    if hint is int:
        return "integer", None
    if hint is float:
        return "number", None
    if hint is str:
        return "string", None
    return "other", None


def _rule(name: str, hint: Any, default: Any) -> Rule:
    hint, meta = _unwrap(hint)
    hint, nullable = _without_none(hint)
    kind, choices = _kind(hint)
    found: dict[str, Any] = {}
    constraints: list[Any] = []
    for m in meta:
        if isinstance(m, FieldInfo):
            constraints.extend(m.metadata)
            found["description"] = m.description or ""
            extra = m.json_schema_extra if isinstance(m.json_schema_extra, dict) else {}
            found["pattern_hint"] = str(extra.get("pattern_hint", ""))
        else:
            constraints.append(m)
    for c in constraints:
        if isinstance(c, at.Ge):
            found["lo"] = c.ge
        elif isinstance(c, at.Gt):
            found["lo"], found["lo_open"] = c.gt, True
        elif isinstance(c, at.Le):
            found["hi"] = c.le
        elif isinstance(c, at.Lt):
            found["hi"], found["hi_open"] = c.lt, True
        elif isinstance(c, at.MaxLen):
            found["max_len"] = c.max_length
        elif isinstance(c, at.MinLen):
            found["min_len"] = c.min_length
        elif isinstance(getattr(c, "pattern", None), str):  # pydantic's Field(pattern=...)
            found["pattern"] = re.compile(c.pattern)
    return Rule(name, kind, nullable, choices=choices, default=default, **found)


@functools.cache
def rules(cls: type) -> tuple[Rule, ...]:
    """Each field of the spec dataclass `cls` with what it declares, in field order."""
    hints = get_type_hints(cls, include_extras=True)
    return tuple(_rule(f.name, hints[f.name], f.default) for f in fields(cls))


def rule(cls: type, name: str) -> Rule:
    """The declared rule of option `name` of `cls` (KeyError when it has no such field)."""
    for r in rules(cls):
        if r.name == name:
            return r
    raise KeyError(name)
