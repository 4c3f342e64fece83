"""Environments a team can train in, all PettingZoo `ParallelEnv`s, looked up by name.

`REGISTRY` maps an environment name to "module:Class"; the module is imported only when that
environment is used, so a missing or broken module fails with a clear error naming it, and only
for specs that use it. Users can add their own with `register_env`.

An environment class may offer two class-level hooks that the team-spec validator calls:

- `validate_params(params: dict) -> list[SpecError]` — every problem in its `params`, with paths
  rooted at the params object (`"$.n"`; the validator re-roots them under `$.environment.params`).
  It must not raise on bad input.
- `expected_agents(params: dict) -> list[str]` — the agent names the environment creates for valid
  params, when they are fixed (the spec's agent ids must then equal them).
- `parameters: tuple[ParamInfo, ...]` — each parameter's default, help and kind (`agents.envs.params.
  describe_params`), from which the designer builds the environment's form.
- `difficulty_levels: int` — how many difficulty levels `reset(options={"difficulty": level})` knows
  (0 .. difficulty_levels − 1); without it a spec cannot enable the adaptive curriculum.

- `takes_team: bool` and `validate_team(agents, params) -> list[SpecError]` — an environment that builds
  itself from the spec's agents: `make_env(name, params, **team_kwargs(name, agents))` hands it the drawn
  team (``team=`` a list of {id, role, intents, prompt, clue}); `validate_team` says in words what a team lacks
  (paths rooted at the spec, e.g. "$.agents") and replaces the fixed names of `expected_agents`.
  Optionally `team_params(agents, params) -> params`: parameters the drawn team sets (number guessing
  counts its informants and distractors on the canvas); the validator and `make_env` check those.
  With ``takes_edges: bool`` it also orders the team by the spec's dependency edges: `team_kwargs(name,
  agents, edges)` adds ``edges=`` (source, target) pairs and the validator calls `validate_team(agents,
  params, edges=the spec's edges)` (the phased pipelines, `agents.envs.pipeline`).

Construction convention: `make_env(name, params, **kw)` calls `Class(**params, **kw)`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from agents.errors import SpecError, SpecValidationError, reroot

__all__ = [
    "REGISTRY",
    "UnknownEnvironmentError",
    "EnvironmentUnavailableError",
    "UNMEASURED_STEP_LIMIT",
    "env_class",
    "env_parameters",
    "breaker_step_limit",
    "episode_limit",
    "make_env",
    "register_env",
    "team_kwargs",
]

REGISTRY: dict[str, str | type] = {
    "number_guess": "agents.envs.number_guess:NumberGuessEnv",
    "customer_service": "agents.envs.customer_service.env:CustomerServiceEnv",
    "research_report": "agents.envs.research_report.env:ResearchReportEnv",
    "collaborative_writing": "agents.envs.collaborative_writing.env:CollaborativeWritingEnv",
    "code_generation": "agents.envs.code_generation.env:CodeGenerationEnv",
    "interactive_support": "agents.envs.interactive_support.env:InteractiveSupportEnv",
    "large_team": "agents.envs.large_team.env:LargeTeamEnv",  # 10-100 agents in groups, task allocation
    "mpe": "agents.envs.mpe:MpeEnv",  # PettingZoo's Multi-Particle tasks (needs the mpe2 package)
}
"""Environment name -> "module:Class" (imported lazily) or the class itself (user-registered)."""


class UnknownEnvironmentError(ValueError):
    """No environment of that name is registered."""


class EnvironmentUnavailableError(UnknownEnvironmentError):
    """The environment is registered but its module or class cannot be loaded."""


def register_env(name: str, target: str | type) -> None:
    """Register a user environment under `name` ("module:Class" or a ParallelEnv subclass)."""
    if not isinstance(name, str) or not name:
        raise ValueError("environment name must be a non-empty string")
    if isinstance(target, str) and ":" not in target:
        raise ValueError(f"environment target {target!r} must look like 'package.module:ClassName'")
    REGISTRY[name] = target


def env_class(name: str) -> type:
    """The environment class registered as `name`, importing its module on first use."""
    if name not in REGISTRY:
        known = ", ".join(sorted(REGISTRY))
        raise UnknownEnvironmentError(f"unknown environment {name!r}; registered environments: {known}")
    target = REGISTRY[name]
    if isinstance(target, type):
        return target
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise EnvironmentUnavailableError(
            f"environment {name!r} is registered as {target} but its module could not be imported ({exc})"
        ) from exc
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        raise EnvironmentUnavailableError(
            f"environment {name!r} is registered as {target} but {module_name} has no class {class_name}"
        )
    return cls


def env_parameters(name: str) -> list[dict[str, Any]]:
    """The parameters of environment `name` as JSON-ready dicts (empty when it describes none)."""
    return [
        {**asdict(param), "choices": list(param.choices)}
        for param in getattr(env_class(name), "parameters", ())
    ]


def make_env(name: str, params: Mapping[str, Any] | None = None, **kw: Any) -> Any:
    """A new environment `name` built from `params` (checked first) plus extra keyword arguments.

    Raises UnknownEnvironmentError / EnvironmentUnavailableError for a bad name and
    agents.errors.SpecValidationError (a ValueError) for bad params.
    """
    cls = env_class(name)
    params = dict(params or {})
    drawn_params = getattr(cls, "team_params", None)
    if drawn_params is not None and kw.get("team") is not None:
        params = dict(drawn_params(kw["team"], params))  # counts taken from the drawn team
    validate = getattr(cls, "validate_params", None)
    if validate is not None:
        errors = list(validate(params))
        if errors:
            # Environments root paths at their params ("$.n") or at the spec ("$.environment.params.n").
            raise SpecValidationError(
                [SpecError(reroot(e.path, "$.environment.params"), e.message) for e in errors]
            )
    return cls(**params, **kw)


def episode_limit(cls: type, params: Mapping[str, Any]) -> int | None:
    """The most steps one episode of ``cls`` with ``params`` takes: its ``max_steps`` parameter (as given,
    else its declared default), after which it ends truncated; None for an environment without one."""
    declared = {p.name: p.default for p in getattr(cls, "parameters", ())}
    if "max_steps" not in declared:
        return None
    value = params.get("max_steps", declared["max_steps"])
    return value if isinstance(value, int) and not isinstance(value, bool) else None


UNMEASURED_STEP_LIMIT = 20
"""The breaker's step limit for an environment that declares no episode length (no ``max_steps``)."""


def breaker_step_limit(cls: type, params: Mapping[str, Any], step_limit: int | None = None) -> int:
    """The circuit breaker's step limit for an episode of ``cls`` with ``params``: ``step_limit`` when the
    spec sets one, else the longest episode (`episode_limit`) plus a quarter of it, at least 2 steps. An
    episode ends truncated at its ``max_steps`` by itself, so one that goes on past it is a loop; the margin
    keeps a limit derived from the environment from tripping on the step that ends it. Without a declared
    episode length: `UNMEASURED_STEP_LIMIT`."""
    if step_limit is not None:
        return step_limit
    longest = episode_limit(cls, params)
    return UNMEASURED_STEP_LIMIT if longest is None else longest + max(2, longest // 4)


def team_kwargs(name: str | None, agents: Any, edges: Any = None) -> dict[str, Any]:
    """The extra `make_env` arguments that hand environment ``name`` the spec's ``agents`` (spec agents or
    mappings): ``{"team": [{id, role, intents, prompt, clue}, ...]}`` when it builds its team from the spec
    (`takes_team`), else {}; plus ``"edges"`` (the spec's dependency edges as (source, target) pairs) when
    ``edges`` are given and the environment orders its team by them (`takes_edges`)."""
    cls = None if name is None else env_class(name)
    if cls is None or not getattr(cls, "takes_team", False):
        return {}

    def get(agent: Any, key: str, default: Any) -> Any:
        return agent.get(key, default) if isinstance(agent, Mapping) else getattr(agent, key, default)

    drawn: dict[str, Any] = {
        "team": [
            {
                "id": get(a, "id", ""),
                "role": get(a, "role", ""),
                "intents": list(get(a, "intents", ()) or ()),
                "prompt": get(a, "prompt", "") or "",
                "clue": get(a, "clue", None),
            }
            for a in agents
        ]
    }
    if edges is not None and getattr(cls, "takes_edges", False):
        from agents.envs.pipeline import dependency_pairs  # numpy and PettingZoo load with an environment

        drawn["edges"] = dependency_pairs(edges)
    return drawn
