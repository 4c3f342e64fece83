"""Spec errors: what is wrong, and where (a JSON path such as `$.agents[2].lora.r`).

They live below both the spec and the environments, so that an environment can report a bad parameter
without importing the spec (the spec imports the environments to validate their parameters).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class SpecError:
    """One problem in a spec: where (a JSON path such as `$.agents[2].lora.r`) and what to change."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def to_dict(self) -> dict[str, str]:
        """Plain-JSON form, as the web API returns field errors."""
        return {"path": self.path, "message": self.message}


class SpecValidationError(ValueError):
    """A spec failed validation; `errors` holds every problem, the message names the first one."""

    def __init__(self, errors: Iterable[SpecError]):
        self.errors: list[SpecError] = list(errors)
        first = str(self.errors[0]) if self.errors else "invalid team spec"
        more = len(self.errors) - 1
        suffix = f" (and {more} more error{'s' if more > 1 else ''})" if more > 0 else ""
        super().__init__(f"invalid team spec: {first}{suffix}")


def reroot(path: str, root: str) -> str:
    """An environment reports paths rooted at its params ("$.n"); place them under `root`."""
    if not isinstance(path, str) or not path.startswith("$"):
        return root
    if path.startswith("$.environment.params"):
        return path
    return root + path[1:]
