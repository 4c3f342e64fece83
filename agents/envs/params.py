"""What every environment's parameters share: the shape and unknown-key check of `validate_params`, and
`describe_params`, the descriptions a form (the designer's Environment tab) is built from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.errors import SpecError
from agents.places import DataFiles


def check_known_params(params: Any, defaults: Mapping[str, Any]) -> tuple[list[SpecError], dict[str, Any]]:
    """Errors for a non-object or unknown keys (paths rooted at params), and the defaults merged with
    the known keys given — ready for the environment's own value checks."""
    if not isinstance(params, Mapping):
        return [SpecError("$", "must be an object")], dict(defaults)
    errors = [
        SpecError(f"$.{key}", f"unknown parameter; known: {', '.join(defaults)}")
        for key in params
        if key not in defaults
    ]
    return errors, {**defaults, **{k: v for k, v in params.items() if k in defaults}}


KINDS = ("bool", "integer", "number", "text", "choice", "list")


@dataclass(frozen=True)
class ParamInfo:
    """One environment parameter as a form shows it: its default, what it does, and how it is entered."""

    name: str
    default: Any
    help: str
    kind: str  # one of KINDS: a checkbox, a number field, free text, a fixed choice or a list of names
    choices: tuple[Any, ...] = ()
    data: DataFiles | None = None  # the data it names, by name on a server (`agents.places`)


def _kind(default: Any, choices: Sequence[Any]) -> str:
    if choices:
        return "choice"
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "integer"
    if isinstance(default, float):
        return "number"
    return "list" if isinstance(default, list | tuple) else "text"


def describe_params(
    defaults: Mapping[str, Any],
    help: Mapping[str, str],
    choices: Mapping[str, Sequence[Any]] | None = None,
    kinds: Mapping[str, str] | None = None,
    data: Mapping[str, DataFiles] | None = None,
) -> tuple[ParamInfo, ...]:
    """Every parameter of `defaults` described; an environment that forgets one fails at import, not in a form.
    ``kinds`` names the kind where the default cannot tell it (a list that defaults to null); ``data``
    declares the parameters that name files or directories, which a server then accepts by name only
    (`agents.spec.paths` derives its checks from these declarations)."""
    choices, kinds, data = choices or {}, kinds or {}, data or {}
    if set(help) != set(defaults):
        raise ValueError(f"parameter help must cover exactly {sorted(defaults)}, got {sorted(help)}")
    if not set(data) <= set(defaults):
        raise ValueError(f"data parameters must be among {sorted(defaults)}, got {sorted(data)}")
    if not set(kinds.values()) <= set(KINDS):
        raise ValueError(f"parameter kinds must be among {KINDS}, got {sorted(kinds.values())}")
    return tuple(
        ParamInfo(
            name,
            default,
            help[name],
            kinds.get(name) or _kind(default, choices.get(name, ())),
            tuple(choices.get(name, ())),
            data.get(name),
        )
        for name, default in defaults.items()
    )
