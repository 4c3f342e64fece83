"""The large team's rule-scripted bidders: bid the top level for a task the agent would finish by its deadline,
pass otherwise (so a task nobody can finish in time is dropped instead of delaying the queue behind it). The
training teacher (`training.teacher: rules`) and the runtime's scripted fallback."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.envs.large_team.env import OBS_FIELDS
from agents.envs.large_team.params import LargeTeamParams

IN_TIME = OBS_FIELDS.index("own_in_time")


class RuleBidders:
    """``act(agent, observation)`` and ``actions(observations)`` over the environment's observation vectors."""

    def __init__(self, params: Mapping[str, Any] | None = None):
        self.top = int({**LargeTeamParams.defaults(), **dict(params or {})}["bid_levels"])

    def act(self, agent: str, observation: Any) -> int:
        return self.top if float(np.asarray(observation)[IN_TIME]) > 0.5 else 0

    def actions(self, observations: Mapping[str, Any]) -> dict[str, int]:
        return {agent: self.act(agent, obs) for agent, obs in observations.items()}
