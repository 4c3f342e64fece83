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
from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from agents.envs.params import check_known_params, describe_params
from agents.errors import SpecError

__all__ = ["MpeEnv", "MPE_TASKS", "PARAM_DEFAULTS", "mpe_available"]

MPE_TASKS: dict[str, str] = {
    "simple_spread": "mpe2.simple_spread_v3",
    "simple_reference": "mpe2.simple_reference_v3",
    "simple_speaker_listener": "mpe2.simple_speaker_listener_v4",
}
"""Task name -> the `mpe2` module whose `parallel_env` builds it."""

COMMUNICATION_TASKS = ("simple_reference", "simple_speaker_listener")

PARAM_DEFAULTS: dict[str, Any] = {"task": "simple_spread", "max_cycles": 25, "agents": 3, "local_ratio": 0.5}
PARAMETERS = describe_params(
    PARAM_DEFAULTS,
    {
        "task": "Which Multi-Particle task: simple_spread (coordination), simple_reference or "
        "simple_speaker_listener (communication).",
        "max_cycles": "Steps per episode (the tasks' standard length is 25).",
        "agents": "simple_spread only: agents, and as many landmarks.",
        "local_ratio": "simple_spread and simple_reference: weight of each agent's own reward against the "
        "team's (0 = team reward only).",
    },
    choices={"task": tuple(MPE_TASKS)},
)


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

    def __init__(
        self,
        task: str = "simple_spread",
        max_cycles: int = 25,
        agents: int = 3,
        local_ratio: float = 0.5,
        render_mode: str | None = None,
    ):
        self.task, self.max_cycles = task, int(max_cycles)
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
    @classmethod
    def validate_params(cls, params: Any) -> list[SpecError]:
        errors, p = check_known_params(params, PARAM_DEFAULTS)
        if p["task"] not in MPE_TASKS:
            errors.append(SpecError("$.task", f"must be one of {', '.join(MPE_TASKS)}"))
        cycles = p["max_cycles"]
        if isinstance(cycles, bool) or not isinstance(cycles, int) or not 1 <= cycles <= 1000:
            errors.append(SpecError("$.max_cycles", "must be an integer from 1 to 1000"))
        n = p["agents"]
        if isinstance(n, bool) or not isinstance(n, int) or not 2 <= n <= 16:
            errors.append(SpecError("$.agents", "must be an integer from 2 to 16"))
        elif n != PARAM_DEFAULTS["agents"] and p["task"] != "simple_spread":
            errors.append(
                SpecError("$.agents", f"only simple_spread takes a number of agents, not {p['task']}")
            )
        ratio = p["local_ratio"]
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not 0.0 <= float(ratio) <= 1.0:
            errors.append(SpecError("$.local_ratio", "must be a number from 0 to 1"))
        return errors

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
