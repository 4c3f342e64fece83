"""Domain randomisation for sim-to-real (docs/design.md#sim-to-real): dropped context, injected latency and failures.

`DomainRandomisation` wraps any PettingZoo ParallelEnv whose observations are dicts (text fields are
shortened, other fields are kept) and perturbs each agent independently every step:

- **dropped context** (``drop_context``): a contiguous run of words (``drop_fraction`` of the text) is
  removed from every text field of that agent's observation, as when a real LLM call's context is cut;
- **latency** (``latency``): the agent's action arrives one step late — this step the env receives the
  action it sent last time (or the no-op), as a slow API reply would; ``info["latency_ms"]`` carries a
  simulated call latency (slow calls above 500 ms, the golden-range alert threshold);
- **failure** (``failure``): the action is lost and the no-op (action 0: pass / continue) is applied.

Trainers read what happened from ``info[agent]["randomisation"]``. Same seed, same perturbations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from pettingzoo import ParallelEnv

from agents.envs.customer_service.tickets import HIDDEN_TICKET


class DomainRandomisation(ParallelEnv):
    """A ParallelEnv wrapper that drops context, delays and fails agent actions at random."""

    def __init__(
        self,
        env: ParallelEnv,
        drop_context: float = 0.1,
        drop_fraction: float = 0.3,
        latency: float = 0.1,
        failure: float = 0.05,
        noop_action: int = 0,
        seed: int | None = None,
    ) -> None:
        """Wrap ``env``; the three probabilities are per agent per step, each in [0, 1]."""
        for name, value in (
            ("drop_context", drop_context),
            ("drop_fraction", drop_fraction),
            ("latency", latency),
            ("failure", failure),
        ):
            if not 0.0 <= float(value) <= 1.0:
                raise ValueError(f"domain randomisation: {name} must be between 0 and 1, got {value}")
        self.env = env
        self.drop_context, self.drop_fraction = float(drop_context), float(drop_fraction)
        self.latency, self.failure = float(latency), float(failure)
        self.noop_action = noop_action
        self.possible_agents = list(env.possible_agents)
        self.metadata = dict(getattr(env, "metadata", {}))
        self.render_mode = getattr(env, "render_mode", None)
        self._rng = np.random.default_rng(seed)
        self._pending: dict[str, Any] = {}

    @property
    def agents(self) -> list[str]:  # type: ignore[override]
        """The wrapped env's live agents."""
        return self.env.agents

    @property
    def unwrapped(self) -> ParallelEnv:
        """The innermost environment."""
        return self.env.unwrapped

    def observation_space(self, agent: str) -> Any:
        """The wrapped env's observation space (text fields only get shorter)."""
        return self.env.observation_space(agent)

    def action_space(self, agent: str) -> Any:
        """The wrapped env's action space."""
        return self.env.action_space(agent)

    def state(self) -> Any:
        """The wrapped env's global state (the centralised critic is not randomised)."""
        return self.env.state()

    def render(self) -> Any:
        """The wrapped env's rendering."""
        return self.env.render()

    def close(self) -> None:
        """Close the wrapped env."""
        self.env.close()

    def _drop(self, text: str) -> str:
        words = text.split(" ")
        if len(words) < 3:
            return text
        n = max(1, int(round(self.drop_fraction * len(words))))
        start = int(self._rng.integers(0, len(words) - n + 1))
        return " ".join(words[:start] + words[start + n :]) or text

    def _perturb(self, observations: dict[str, Any]) -> tuple[dict[str, Any], dict[str, bool]]:
        dropped = {}
        for agent, obs in observations.items():
            dropped[agent] = bool(self._rng.random() < self.drop_context) and isinstance(obs, Mapping)
            if dropped[agent]:
                # the draft-only supervisor's placeholder holds no context to lose
                observations[agent] = {
                    k: self._drop(v) if isinstance(v, str) and v != HIDDEN_TICKET else v
                    for k, v in obs.items()
                }
        return observations, dropped

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Reset the wrapped env; ``seed`` also seeds the perturbations."""
        if seed is not None:
            self._rng = np.random.default_rng(seed + 7919)
        self._pending = {}
        observations, infos = self.env.reset(seed=seed, options=options)
        observations, dropped = self._perturb(dict(observations))
        for agent in infos:
            infos[agent] = {**infos[agent], "randomisation": {"dropped_context": dropped.get(agent, False)}}
        return observations, infos

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Perturb the actions (latency, failure), step the wrapped env, perturb the observations."""
        applied, events = {}, {}
        for agent, action in actions.items():
            late = bool(self._rng.random() < self.latency)
            failed = bool(self._rng.random() < self.failure)
            latency_ms = float(self._rng.lognormal(np.log(120.0), 0.4))
            if late:
                latency_ms += float(self._rng.uniform(500.0, 2000.0))
                applied[agent] = self._pending.pop(agent, self.noop_action)
                self._pending[agent] = action
            else:
                applied[agent] = action
            if failed:
                applied[agent] = self.noop_action
            events[agent] = {"late": late, "failed": failed, "latency_ms": latency_ms}
        observations, rewards, terminations, truncations, infos = self.env.step(applied)
        observations, dropped = self._perturb(dict(observations))
        for agent in infos:
            event = events.get(agent, {"late": False, "failed": False, "latency_ms": 0.0})
            infos[agent] = {
                **infos[agent],
                "latency_ms": event["latency_ms"],
                "randomisation": {**event, "dropped_context": dropped.get(agent, False)},
            }
        return observations, rewards, terminations, truncations, infos
