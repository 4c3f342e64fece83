"""A run's episode budget: `training.episodes`, the one place every trainer reads it from. Whoever sets a
budget other than the spec's (the web launch's override, the CLI's `--episodes`, a data-parallel worker)
writes it there with `with_episodes`, on the document or on the loaded spec alike."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from agents.spec.nodes import TeamSpec

__all__ = ["with_episodes"]

Spec = TypeVar("Spec", TeamSpec, dict)


def with_episodes(spec: Spec, episodes: int | None) -> Spec:
    """`spec` (a TeamSpec or a spec document) with `training.episodes` set to `episodes`; unchanged when
    None. A document gets a new dict (an absent training section becomes one holding the budget); a
    training section that is not an object is left for the validator to report."""
    if episodes is None:
        return spec
    if isinstance(spec, TeamSpec):
        return replace(spec, training=replace(spec.training, episodes=int(episodes)))
    training: Any = spec.get("training", {})
    if not isinstance(training, dict):
        return spec
    return {**spec, "training": {**training, "episodes": episodes}}
