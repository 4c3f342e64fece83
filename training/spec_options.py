"""How a spec's options reach a trainer's config: by name.

An option the spec declares (agents/spec/nodes.py) under the same name, and in the same unit, as a field
of a trainer's config arrives there as given, with no line of wiring; null means "the trainer's own
default" and leaves the config's default in place. Each trainer's `from_spec` then writes only what it
translates: a renamed option, an episode count turned into updates, a learning rate scaled by the number
of processes. `TRANSLATED` names the options read elsewhere, so a test can tell that no option is
silently ignored (tests/training/test_spec_options.py).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

__all__ = ["same_named", "TRANSLATED"]


def same_named(config_cls: type, *sections: Any) -> dict[str, Any]:
    """Every option of `sections` (spec dataclasses, later ones winning) that `config_cls` has a field
    for, by name; null options are left out (the config keeps its default)."""
    names = {f.name for f in fields(config_cls)}
    values: dict[str, Any] = {}
    for section in sections:
        for f in fields(section):
            value = getattr(section, f.name)
            if f.name in names and value is not None:
                values[f.name] = value
    return values


TRANSLATED: dict[str, str] = {
    "policy_sharing": "MappoConfig.sharing",
    "teacher": "training.teacher (which teacher; MappoConfig.teacher_coef is 0 without one)",
    "teacher_checkpoint": "training.teacher (the checkpoint teacher's run)",
    "teacher_fade_episodes": "MappoConfig.teacher_fade_updates (in updates)",
    "critic_warmup_episodes": "MappoConfig.critic_warmup_updates (in updates)",
    "episodes": "MappoConfig.updates (in updates of batch_size episodes)",
    "batch_size": "MappoConfig.episodes_per_update",
}
"""Training options a trainer reads under another name or unit, or outside its config: where each goes."""
