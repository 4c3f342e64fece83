"""Read-only JSON values for the spec tree, and the way back to plain JSON."""

from __future__ import annotations

from dataclasses import fields, is_dataclass
from typing import Any

__all__ = ["FrozenDict"]


class FrozenDict(dict):
    """A read-only dict: keeps frozen dataclasses frozen all the way down, and still pickles."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("spec values are read-only; build a new spec from spec.to_dict() instead")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted((k, _hashable(v)) for k, v in self.items())))

    def __reduce__(self) -> tuple:
        return (FrozenDict, (dict(self),))


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


def _freeze(value: Any) -> Any:
    """JSON value -> immutable twin (dict -> FrozenDict, list -> tuple)."""
    if isinstance(value, dict):
        return FrozenDict({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _to_json(value: Any) -> Any:
    """Spec tree -> plain JSON values (dataclass -> dict, tuple -> list)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    return value
