"""The prompt an agent is given when its spec leaves it out: one definition, read by the loader (`_build`)
and shown by the designer (`filled_prompts`, in the validation report).

An environment may derive it from what the agent does (``default_prompt(agent, params)`` on its class,
e.g. customer service under a catalogue of one's own: the intents the agent owns, in words); otherwise,
and where it answers None, the agent gets its role's default prompt (`agents.roles`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.envs import env_class
from agents.roles import ROLES

__all__ = ["default_prompt", "filled_prompts", "prompt_warnings"]


def _hook(environment: Mapping[str, Any], name: str) -> Any:
    """The environment class's ``name`` attribute (None for an unknown or unavailable environment)."""
    if not isinstance(environment.get("name"), str):
        return None
    try:
        return getattr(env_class(environment["name"]), name, None)
    except Exception:  # noqa: BLE001 - an unknown or unavailable environment derives nothing
        return None


def default_prompt(agent: Mapping[str, Any], environment: Mapping[str, Any] | None) -> str:
    """What ``agent`` (a spec agent's mapping) is told when it names no prompt, in ``environment`` (the
    spec's ``environment`` section): the environment's derived prompt, else its role's default ("" for
    a role without one)."""
    environment = environment if isinstance(environment, Mapping) else {}
    params = environment.get("params")
    derive = _hook(environment, "default_prompt")
    derived = derive(agent, params if isinstance(params, Mapping) else {}) if callable(derive) else None
    if derived:
        return derived
    role = ROLES.get(str(agent.get("role")))
    return role.default_prompt if role is not None else ""


def filled_prompts(doc: Any) -> dict[str, str]:
    """Per agent of the document that leaves its prompt out, by id: the prompt the loader gives it (what
    the designer shows in its prompt box). Read from the raw document, valid or not, so a team still
    being drawn (intents not yet all given) shows them too; {} for anything that is no spec."""
    agents = doc.get("agents") if isinstance(doc, Mapping) else None
    if not isinstance(agents, list):
        return {}
    environment = doc.get("environment")
    return {
        agent["id"]: default_prompt(agent, environment)
        for agent in agents
        if isinstance(agent, Mapping) and isinstance(agent.get("id"), str) and "prompt" not in agent
    }


def prompt_warnings(doc: Any) -> list[tuple[str, str]]:
    """(JSON path, message) for each agent whose prompt of its own may be out of date: the environment
    names intents it owns that the prompt does not speak of (customer service under a catalogue of one's
    own). Such a prompt is the user's and is never rewritten; the warning says how to follow the intents."""
    agents = doc.get("agents") if isinstance(doc, Mapping) else None
    environment = doc.get("environment") if isinstance(doc, Mapping) else None
    environment = environment if isinstance(environment, Mapping) else {}
    unmentioned = _hook(environment, "unmentioned_intents")
    if not isinstance(agents, list) or not callable(unmentioned):
        return []
    params = environment.get("params")
    out = []
    for i, agent in enumerate(agents):
        if not isinstance(agent, Mapping):
            continue
        missing = unmentioned(agent, params if isinstance(params, Mapping) else {})
        if not missing:
            continue
        words = ", ".join(name.replace("_", " ") for name in missing)
        role = ROLES.get(str(agent.get("role")))
        follow = "have it written from its intents ('Write it from its intents' beside the prompt)"
        if role is not None and agent.get("prompt") == role.default_prompt:
            message = (
                f"agent {agent.get('id')}'s prompt is its role's default and speaks of none of the intents it "
                f"owns ({words}): {follow}, or write its own"
            )
        else:
            message = (
                f"agent {agent.get('id')}'s prompt does not speak of {words}, which it owns: it may be out of "
                f"date (a prompt you wrote is never rewritten); edit it, or {follow}"
            )
        out.append((f"$.agents[{i}].prompt", message))
    return out
