"""The large team's rule-scripted bidders, fastest kind first: an agent bids only for a task it would finish by its
deadline (a task nobody can finish in time is dropped instead of delaying the queue behind it); it bids the top
level when it is of the fastest kind for the task, one level lower when it is slower. So a task goes to a fast agent
whenever one can make the deadline (ties: whoever finishes first), and the slower ones — the generalists above all —
stay a reserve for the tasks no fast agent can take, which is what the team falls back on when a specialist fails.
The training teacher (`training.teacher: rules`) and the runtime's scripted fallback."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.envs.large_team.env import OBS_FIELDS
from agents.envs.large_team.params import LargeTeamParams

IN_TIME = OBS_FIELDS.index("own_in_time")
SPEED = OBS_FIELDS.index("relative_speed")  # own speed on the task's kind ÷ the fastest online agent's
FASTEST = 0.99


class RuleBidders:
    """``act(agent, observation)`` and ``actions(observations)`` over the environment's observation vectors."""

    def __init__(self, params: Mapping[str, Any] | None = None):
        self.top = int({**LargeTeamParams.defaults(), **dict(params or {})}["bid_levels"])

    def act(self, agent: str, observation: Any) -> int:
        obs = np.asarray(observation, dtype=float)
        if obs[IN_TIME] <= 0.5:
            return 0
        if obs[SPEED] >= FASTEST or self.top == 1:  # one level: every in-time agent bids it
            return self.top
        return self.top - 1

    def actions(self, observations: Mapping[str, Any]) -> dict[str, int]:
        return {agent: self.act(agent, obs) for agent, obs in observations.items()}
