"""A large support team (10–100 agents in groups) allocating a task stream by learned or fixed auction, a central
router or round-robin, with its state shared by gossip or a controller and agents that fail on a schedule."""

from agents.envs.large_team.env import OBS_FIELDS, LargeTeamEnv
from agents.envs.large_team.groups import parse_groups, scaled_groups
from agents.envs.large_team.params import ALLOCATIONS, STATE_SYNCS, LargeTeamParams

__all__ = [
    "ALLOCATIONS",
    "LargeTeamEnv",
    "LargeTeamParams",
    "OBS_FIELDS",
    "STATE_SYNCS",
    "parse_groups",
    "scaled_groups",
]
