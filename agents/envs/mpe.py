"""PettingZoo's Multi-Particle Environments (the `mpe2` package) as MASE environments.

Three standard cooperative tasks, chosen with the `task` parameter:

- ``simple_spread``: N agents cover N landmarks and avoid colliding (coordination); agents ``agent_0`` …
- ``simple_reference``: two agents each know the landmark the *other* must reach and say it over a
  10-symbol channel (communication); agents ``agent_0``, ``agent_1``.
- ``simple_speaker_listener``: a mute-but-seeing speaker names the target colour, a blind listener
  moves to it (communication); agents ``speaker_0``, ``listener_0``.

Observations are float vectors (``observation_kind = "vector"``: the trainer passes them through without
a text backbone), actions are Discrete (the tasks' discrete action sets), and `state()` is the
concatenation of every agent's observation, as `mpe2` defines it. `mpe2` is imported when an environment
is built, so a spec naming ``mpe`` fails with a clear error where the package is absent.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from agents.envs.params import EnvParams, param
from agents.errors import SpecError

__all__ = ["MpeEnv", "MPE_TASKS", "PARAM_DEFAULTS", "mpe_available"]

MPE_TASKS: dict[str, str] = {
    "simple_spread": "mpe2.simple_spread_v3",
    "simple_reference": "mpe2.simple_reference_v3",
    "simple_speaker_listener": "mpe2.simple_speaker_listener_v4",
}
"""Task name -> the `mpe2` module whose `parallel_env` builds it."""

COMMUNICATION_TASKS = ("simple_reference", "simple_speaker_listener")


@dataclass(frozen=True)
class MpeParams(EnvParams):
    """The environment's parameters (the spec's ``environment.params``), each declared once."""

    task: str = param(
        "simple_spread",
        "Which Multi-Particle task: simple_spread (coordination), simple_reference or "
        "simple_speaker_listener (communication).",
        choices=tuple(MPE_TASKS),
    )
    max_cycles: int = param(25, "Steps per episode (the tasks' standard length is 25).", low=1, high=1000)
    agents: int = param(3, "simple_spread only: agents, and as many landmarks.", low=2, high=16)
    local_ratio: float = param(
        0.5,
        "simple_spread and simple_reference: weight of each agent's own reward against the "
        "team's (0 = team reward only).",
        low=0.0,
        high=1.0,
    )

    @classmethod
    def related_problems(cls, merged: Mapping[str, Any], bad: set[str]) -> list[SpecError]:
        """Only simple_spread takes a number of agents."""
        if (
            "agents" in bad
            or merged["agents"] == cls.defaults()["agents"]
            or merged["task"] == "simple_spread"
        ):
            return []
        return [SpecError("$.agents", f"only simple_spread takes a number of agents, not {merged['task']}")]


PARAM_DEFAULTS: dict[str, Any] = MpeParams.defaults()
PARAMETERS = MpeParams.describe()


def mpe_available() -> bool:
    """Whether the `mpe2` package can be imported."""
    try:
        importlib.import_module("mpe2")
    except ImportError:
        return False
    return True


class MpeEnv(ParallelEnv):
    """A Multi-Particle task behind MASE's environment conventions (params checked, agents listed)."""

    metadata = {"name": "mpe", "render_modes": []}
    parameters = PARAMETERS
    observation_kind = "vector"  # float vectors: no text backbone (training.mappo.vector_features)

    def __init__(self, *, render_mode: str | None = None, **params: Any):
        """``params``: `MpeParams`."""
        p = MpeParams.build("mpe", params)
        task, agents, local_ratio = p.task, p.agents, p.local_ratio
        self.task, self.max_cycles = task, p.max_cycles
        kwargs: dict[str, Any] = {"max_cycles": self.max_cycles, "continuous_actions": False}
        if task == "simple_spread":
            kwargs |= {"N": int(agents), "local_ratio": float(local_ratio)}
        elif task == "simple_reference":
            kwargs |= {"local_ratio": float(local_ratio)}
        try:
            module = importlib.import_module(MPE_TASKS[task])
        except ImportError as exc:
            raise ImportError(f"environment 'mpe' needs the mpe2 package (pip install mpe2): {exc}") from exc
        self._env = module.parallel_env(render_mode=render_mode, **kwargs)
        self.possible_agents = list(self._env.possible_agents)
        self.agents: list[str] = []
        self.render_mode = render_mode

    # ---- spec hooks -----------------------------------------------------------------------------------
    validate_params = staticmethod(MpeParams.problems)
    """Every problem with ``environment.params``, paths rooted at params (never raises)."""

    @classmethod
    def expected_agents(cls, params: dict) -> list[str]:
        task = params.get("task", PARAM_DEFAULTS["task"])
        if task == "simple_speaker_listener":
            return ["speaker_0", "listener_0"]
        if task == "simple_reference":
            return ["agent_0", "agent_1"]
        return [f"agent_{i}" for i in range(int(params.get("agents", PARAM_DEFAULTS["agents"])))]

    # ---- ParallelEnv ----------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> Any:
        return self._env.observation_space(agent)

    def action_space(self, agent: str) -> Any:
        return self._env.action_space(agent)

    @property
    def state_space(self) -> Any:
        return self._env.state_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        obs, infos = self._env.reset(seed=seed, options=options)
        self.agents = list(self._env.agents)
        return {a: np.asarray(o, dtype=np.float32) for a, o in obs.items()}, infos

    def step(self, actions: dict) -> tuple[dict, dict, dict, dict, dict]:
        obs, rewards, terms, truncs, infos = self._env.step({a: int(x) for a, x in actions.items()})
        self.agents = list(self._env.agents)
        obs = {a: np.asarray(o, dtype=np.float32) for a, o in obs.items()}
        return obs, {a: float(r) for a, r in rewards.items()}, terms, truncs, infos

    def state(self) -> np.ndarray:
        return np.asarray(self._env.state(), dtype=np.float32)

    def render(self) -> Any:
        return self._env.render()

    def close(self) -> None:
        self._env.close()
