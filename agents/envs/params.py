"""The part of every environment's `validate_params` that is the same: shape and unknown keys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.spec import SpecError


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
