"""What the designer offers in its menus, as plain JSON."""

from __future__ import annotations

from typing import Any

from agents.envs import REGISTRY, EnvironmentUnavailableError, env_class
from agents.roles import REWARD_TERMS, ROLES
from agents.spec.algorithms import ALGORITHMS, algorithm_catalog
from agents.spec.frozen import _to_json
from agents.spec.nodes import TeamSpec
from agents.spec.options import (
    BASELINES,
    EDGE_KINDS,
    FALLBACK_KINDS,
    LIMITS,
    PHASES,
    POOLINGS,
    PROTOCOLS,
    REWARD_PRESETS,
    SPEC_VERSION,
    SWEET_SPOT_AGENTS,
)

__all__ = ["spec_catalog", "intent_catalogues", "prompt_routing"]


def intent_catalogues() -> dict[str, list[dict[str, str]]]:
    """Per environment whose agents own intents (`intent_catalogue`): each intent's name and description,
    for the designer's checkboxes."""
    out = {}
    for name in sorted(REGISTRY):
        try:
            catalogue = getattr(env_class(name), "intent_catalogue", None)
        except EnvironmentUnavailableError:
            continue
        if catalogue:
            out[name] = [dict(item) for item in catalogue]
    return out


def prompt_routing() -> dict[str, str]:
    """Per environment whose policy reads the agents' prompts (`prompt_routing`): the parameter under which
    the prompt routes work; an environment left out has policies that never read a prompt, so editing one
    changes only the reply writer's system prompt (what the designer's inspector says of an edit)."""
    out = {}
    for name in sorted(REGISTRY):
        try:
            param = getattr(env_class(name), "prompt_routing", None)
        except EnvironmentUnavailableError:
            continue
        if param:
            out[name] = str(param)
    return out


def spec_catalog() -> dict[str, Any]:
    """Everything the designer offers in its menus, as plain JSON: roles with default prompts, reward
    terms and presets, phases, enumerations, each training algorithm's capabilities, registered
    environments and size limits."""
    return {
        "spec_version": SPEC_VERSION,
        "roles": [r.to_dict() for r in ROLES.values()],
        "reward_terms": [t.to_dict() for t in REWARD_TERMS.values()],
        "reward_presets": _to_json(REWARD_PRESETS),
        "phases": list(PHASES),
        "edge_kinds": list(EDGE_KINDS),
        "poolings": list(POOLINGS),
        "protocols": [None, *PROTOCOLS],
        "fallback_kinds": list(FALLBACK_KINDS),
        "algorithms": list(ALGORITHMS),
        "algorithm_capabilities": algorithm_catalog(),  # each algorithm: trainer, capabilities
        "baselines": list(BASELINES),
        "environments": sorted(REGISTRY),
        "intent_catalogues": intent_catalogues(),
        "limits": dict(LIMITS),
        "sweet_spot_agents": list(SWEET_SPOT_AGENTS),
        "defaults": _to_json(TeamSpec(name="", agents=())),
    }
