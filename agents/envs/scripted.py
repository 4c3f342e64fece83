"""Rule-scripted teams by environment name: pre-training partners (sim-to-real) and the runtime's fallback.

``scripted_team(name, params)`` returns an object with ``act(agent, observation) -> int`` and
``actions(observations) -> {agent: int}`` for the environments that ship one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SCRIPTED_ENVIRONMENTS: tuple[str, ...] = ("customer_service", "research_report")


def scripted_team(name: str, params: Mapping[str, Any] | None = None) -> Any:
    """The rule-scripted team for environment ``name`` with ``params`` (its ``environment.params``: what
    the agents observe matters to their rules); ValueError naming the known environments otherwise."""
    if name == "customer_service":
        from agents.envs.customer_service.rules import ScriptedTeam

        return ScriptedTeam(queues=(params or {}).get("role_view") == "triage")
    if name == "research_report":
        from agents.envs.research_report.scripted import ScriptedResearchTeam

        return ScriptedResearchTeam()
    raise ValueError(
        f"no rule-scripted team for environment {name!r}; available: {', '.join(SCRIPTED_ENVIRONMENTS)}"
    )
