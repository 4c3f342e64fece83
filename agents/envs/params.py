"""What every environment's parameters share: `EnvParams`, the one declaration of an environment's
parameters (a frozen dataclass of `param` fields) from which its defaults, its checks and the descriptions a
form (the designer's Environment tab) is built from are derived; `check_known_params`, the shape and
unknown-key check; and `describe_params`, descriptions from a defaults dict (user environments)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import MISSING, Field, dataclass, field, fields
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


KINDS = ("bool", "integer", "number", "text", "choice", "list", "lines")


@dataclass(frozen=True)
class ParamInfo:
    """One environment parameter as a form shows it: its default, what it does, and how it is entered."""

    name: str
    default: Any
    help: str
    # one of KINDS: a checkbox, a number field, free text, a fixed choice, a list of names (comma-separated)
    # or a list of phrases (one a line)
    kind: str
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


# ------------------------------------------------------------------------------ one declaration per environment

PARAM = "env_param"
"""The dataclass-field metadata key under which `param` stores a parameter's declaration."""


@dataclass(frozen=True)
class Declared:
    """What a parameter declares besides its default: help, the range or choices it accepts, its kind
    where the default cannot tell it, the data it names; ``checked`` False leaves its value to the
    environment's `EnvParams.related_problems` (a choice list that is only the form's shortcuts)."""

    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] = ()
    kind: str | None = None
    data: DataFiles | None = None
    checked: bool = True


def param(
    default: Any,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    choices: Sequence[Any] = (),
    kind: str | None = None,
    data: DataFiles | None = None,
    checked: bool = True,
) -> Any:
    """One environment parameter, declared as a field of its environment's `EnvParams` dataclass: the
    default, the help the designer shows, the (low, high) range of a number, the choices, the data it
    names. Defaults, checks, the designer's form and `agents.spec.paths` are all derived from it."""
    if kind is not None and kind not in KINDS:
        raise ValueError(f"parameter kinds must be among {KINDS}, got {kind!r}")
    meta = {PARAM: Declared(help, low, high, tuple(choices), kind, data, checked)}
    if isinstance(default, list):  # a mutable default: each instance gets its own copy
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


def _value_problem(name: str, value: Any, kind: str, declared: Declared) -> SpecError | None:
    """The problem of ``value`` for a parameter of ``kind`` declared as ``declared`` (None: acceptable)."""
    low, high = declared.low, declared.high
    if not declared.checked:
        return None
    if kind == "choice":
        if value in declared.choices:
            return None
        return SpecError(f"$.{name}", f"must be one of: {', '.join(map(str, declared.choices))}")
    if kind == "bool":
        return None if isinstance(value, bool) else SpecError(f"$.{name}", "must be true or false")
    if kind not in ("integer", "number") or low is None or high is None:
        return None
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            return SpecError(f"$.{name}", f"must be an integer between {low:g} and {high:g}")
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        return SpecError(f"$.{name}", f"must be a number between {low:g} and {high:g}")
    return None


class EnvParams:
    """The base of an environment's parameters: subclass it as a frozen dataclass whose fields are `param`s.

    From that one declaration come the defaults (`defaults`), the designer's descriptions (`describe`),
    the spec check (`problems`: unknown keys, kinds, ranges, choices, then the environment's own
    `related_problems`) and the constructor's checked values (`build`)."""

    @classmethod
    def _declared(cls) -> list[tuple[Field[Any], Declared]]:
        return [(f, f.metadata[PARAM]) for f in fields(cls) if PARAM in f.metadata]  # type: ignore[arg-type]

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Each parameter's default, in declaration order (a fresh copy of list defaults)."""
        return {
            f.name: f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]
            for f, _ in cls._declared()
        }

    @classmethod
    def describe(cls) -> tuple[ParamInfo, ...]:
        """The parameters as the designer's Environment tab shows them (`ParamInfo`)."""
        defaults = cls.defaults()
        return tuple(
            ParamInfo(
                f.name,
                defaults[f.name],
                d.help,
                d.kind or _kind(defaults[f.name], d.choices),
                d.choices,
                d.data,
            )
            for f, d in cls._declared()
        )

    @classmethod
    def problems(cls, params: Any) -> list[SpecError]:
        """Every problem with ``params`` (paths rooted at them, ``$.name``); never raises."""
        errors, merged = check_known_params(params, cls.defaults())
        if not isinstance(params, Mapping):
            return errors
        kinds = {p.name: p.kind for p in cls.describe()}
        for f, declared in cls._declared():
            problem = _value_problem(f.name, merged[f.name], kinds[f.name], declared)
            if problem is not None:
                errors.append(problem)
        bad = {e.path.removeprefix("$.") for e in errors}
        return errors + cls.related_problems(merged, bad)

    @classmethod
    def related_problems(cls, merged: Mapping[str, Any], bad: set[str]) -> list[SpecError]:
        """The environment's own checks over all its values (``merged``: defaults plus what was given;
        ``bad``: the names that already failed their declared check): data that must exist, parameters
        that constrain each other. None by default."""
        return []

    @classmethod
    def build(cls, label: str, given: Mapping[str, Any]) -> Any:
        """The checked parameters: the declared defaults with ``given`` (the constructor's keywords) over
        them; ValueError naming ``label`` and the first problem."""
        errors = cls.problems(given)
        if errors:
            raise ValueError(f"{label}: {errors[0].path}: {errors[0].message}")
        return cls(**given)

    def as_dict(self) -> dict[str, Any]:
        """The values, by parameter name."""
        return {f.name: getattr(self, f.name) for f, _ in self._declared()}
