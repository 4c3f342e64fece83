"""Rule-scripted teams by environment name: pre-training partners (sim-to-real) and the runtime's fallback.

``scripted_team(name, params)`` returns an object with ``act(agent, observation) -> int`` and
``actions(observations) -> {agent: int}`` for the environments that ship one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents.envs.routing import ROUTING_ENVIRONMENTS, routing

SCRIPTED_ENVIRONMENTS: tuple[str, ...] = (
    "customer_service",
    "research_report",
    "collaborative_writing",
    "code_generation",
    "large_team",
    "interactive_support",
)


def scripted_team(name: str, params: Mapping[str, Any] | None = None, team: Any | None = None) -> Any:
    """The rule-scripted team for environment ``name`` with ``params`` (its ``environment.params``: what
    the agents observe matters to their rules) and, for an environment that takes its team from the spec,
    ``team`` (the spec's agents: the rules follow the drawn roster); ValueError naming the known
    environments otherwise."""
    if name == "large_team":
        from agents.envs.large_team.scripted import RuleBidders

        return RuleBidders(params)
    if name in ROUTING_ENVIRONMENTS:
        return routing(name).scripted_team(params, team)
    if name == "research_report":
        from agents.envs.research_report.scripted import ScriptedResearchTeam

        return ScriptedResearchTeam(team=team)
    if name == "collaborative_writing":
        from agents.envs.collaborative_writing.scripted import ScriptedWritingTeam

        return ScriptedWritingTeam(team=team)
    if name == "code_generation":
        from agents.envs.code_generation.scripted import ScriptedCodeTeam

        return ScriptedCodeTeam(team=team)
    if name == "interactive_support":
        from agents.envs.interactive_support.baselines import ScriptedSupportTeam

        return ScriptedSupportTeam(params=params)
    raise ValueError(
        f"no rule-scripted team for environment {name!r}; available: {', '.join(SCRIPTED_ENVIRONMENTS)}"
    )
