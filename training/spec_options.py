"""How a spec's options reach a trainer's config: by name.

An option the spec declares (agents/spec/nodes.py) under the same name, and in the same unit, as a field
of a trainer's config arrives there as given, with no line of wiring; null means "the trainer's own
default" and leaves the config's default in place. Each trainer's `from_spec` then writes only what it
translates: a renamed option, an episode count turned into updates, a learning rate scaled by the number
of processes. No list says which options a trainer reads: a test records what each trainer reads of its
algorithm's training section and fails on an option it never reads (tests/training/test_spec_options.py).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

__all__ = ["same_named"]


def same_named(config_cls: type, *sections: Any) -> dict[str, Any]:
    """Every option of `sections` (spec dataclasses, later ones winning) that `config_cls` has a field
    for, by name; null options are left out (the config keeps its default)."""
    names = {f.name for f in fields(config_cls)}
    values: dict[str, Any] = {}
    for section in sections:
        for f in fields(section):
            if f.name not in names:
                continue  # not read: a test records what each trainer reads (asks for) of its section
            value = getattr(section, f.name)
            if value is not None:
                values[f.name] = value
    return values
