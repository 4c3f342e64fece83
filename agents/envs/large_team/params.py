"""The large team's parameters (the spec's ``environment.params``), each declared once."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agents.envs.large_team.groups import group_problems, parse_groups
from agents.envs.params import EnvParams, param
from agents.errors import SpecError

ALLOCATIONS = ("auction", "fixed_auction", "central", "round_robin")
STATE_SYNCS = ("gossip", "central")
KINDS = ["presales", "shipping", "dispute", "quality"]
FAULT = re.compile(r"^\s*([a-z][a-z0-9_]{0,39})\s*@\s*([0-9]+)(?:\s*-\s*([0-9]+))?\s*(storm)?\s*$")
DEFENCES = ("reputation", "none")

DEFAULT_GROUPS = [
    "guides*4: presales=1.0 shipping=0.4 cap=4",
    "couriers*4: shipping=1.0 dispute=0.4 cap=4",
    "mediators*4: dispute=1.0 quality=0.4 cap=4",
    "inspectors*4: quality=1.0 presales=0.4 cap=4",
    "generalists*4: presales=0.6 shipping=0.6 dispute=0.6 quality=0.6 cap=6",
]


@dataclass(frozen=True)
class LargeTeamParams(EnvParams):
    """Parameters of `LargeTeamEnv`."""

    groups: list = param(
        DEFAULT_GROUPS,
        'The team by groups, one line each: "id*count: kind=speed ... cap=N" (the id is the group\'s agent on '
        "the canvas; its members are id_0 … id_<count-1>; cap = tasks an agent may hold).",
        kind="lines",
    )
    kinds: list = param(KINDS, "The task kinds that arrive.", kind="list")
    allocation: str = param(
        "auction",
        "Who gets each task: auction (each agent's bid comes from its trained policy), fixed_auction (sealed-bid "
        "auction on value, capability and load, plus the load balancer), central (a router sends it to whoever "
        "would finish first), round_robin (capable agents in turn).",
        choices=ALLOCATIONS,
    )
    state_sync: str = param(
        "gossip",
        "How agents learn who is busy, reputations and the codebook version: gossip (push-pull, anti-entropy "
        "past 50 agents) or a central controller.",
        choices=STATE_SYNCS,
    )
    max_steps: int = param(200, "Tasks per episode (one task arrives per step).", low=10, high=5000)
    load: float = param(
        1.1, "Arrival rate as a share of the team's capacity (above 1: more work than the team can do).",
        low=0.1, high=3.0,
    )  # fmt: skip
    slack: float = param(
        3.0, "Mean time to a task's deadline, in units of its work at full speed.", low=1.0, high=20.0
    )
    bid_levels: int = param(2, "Bid levels a learned bidder chooses from (0 = no bid).", low=1, high=10)
    cost_per_time: float = param(
        0.1, "Cost of one time unit of an agent's work, taken from the team reward.", low=0.0, high=1.0
    )
    round_length: float = param(1.0, "Time units per gossip round.", low=0.05, high=100.0)
    message_quota: int = param(
        16,
        "Messages an agent may handle per gossip round; above it it gossips with one peer.",
        low=2,
        high=1000,
    )
    storm_defence: str = param(
        "reputation",
        "Against message storms: reputation (the quota is enforced, an agent over it loses reputation, its "
        "messages are throttled and its bids discounted until it behaves) or none (every message is delivered).",
        choices=DEFENCES,
    )
    storm_messages: int = param(
        200, "Messages per gossip round an agent in a storm pushes to random peers.", low=1, high=100000
    )
    message_cost: float = param(
        0.01, "Time units of work each delivered storm message costs its receiver.", low=0.0, high=10.0
    )
    codebook_every: int = param(50, "Tasks between codebook versions (0 = never).", low=0, high=10000)
    fault_schedule: list = param(
        [],
        'Faults during an episode: "agent@task" takes the agent offline, e.g. "guides_0@100"; "agent@task storm" '
        '(to the end) or "agent@first-last storm" makes it flood the team with messages, e.g. "couriers_1@20-120 storm".',
        kind="list",
    )

    @classmethod
    def related_problems(cls, merged: Mapping[str, Any], bad: set[str]) -> list[SpecError]:
        kinds = merged["kinds"]
        if (
            not isinstance(kinds, list | tuple)
            or not kinds
            or not all(isinstance(k, str) and k for k in kinds)
        ):
            return [SpecError("$.kinds", "list at least one task kind")]
        errors = [SpecError(path, message) for path, message in group_problems(merged["groups"], kinds)]
        if errors or "max_steps" in bad:
            return errors
        members = {m for g in parse_groups(merged["groups"]) for m in g.members()}
        faults = merged["fault_schedule"]
        if not isinstance(faults, list | tuple):
            return [SpecError("$.fault_schedule", 'must be a list of "agent@task"')]
        for i, fault in enumerate(faults):
            match = FAULT.match(fault) if isinstance(fault, str) else None
            if match is None or (match.group(3) is not None and match.group(4) is None):
                errors.append(
                    SpecError(f"$.fault_schedule[{i}]", 'write "agent@task" or "agent@first-last storm"')
                )
            elif match.group(1) not in members:
                errors.append(SpecError(f"$.fault_schedule[{i}]", f"no agent {match.group(1)} in the groups"))
            elif int(match.group(2)) >= merged["max_steps"]:
                errors.append(
                    SpecError(f"$.fault_schedule[{i}]", "the task must come before the episode ends")
                )
            elif match.group(3) is not None and int(match.group(3)) < int(match.group(2)):
                errors.append(SpecError(f"$.fault_schedule[{i}]", "a storm ends after it starts"))
        return errors


def fault_plan(faults: list[str]) -> dict[int, list[str]]:
    """Task index → the agents that go offline when it arrives (storms are not in it: `storm_plan`)."""
    plan: dict[int, list[str]] = {}
    for fault in faults:
        match = FAULT.match(fault)
        if match is not None and match.group(4) is None:
            plan.setdefault(int(match.group(2)), []).append(match.group(1))
    return plan


def storm_plan(faults: list[str]) -> dict[int, list[tuple[str, bool]]]:
    """Task index → (agent, True) for a storm that starts when it arrives, (agent, False) for one that ends
    after the previous task (a storm without a last task lasts to the episode's end)."""
    plan: dict[int, list[tuple[str, bool]]] = {}
    for fault in faults:
        match = FAULT.match(fault)
        if match is not None and match.group(4) is not None:
            plan.setdefault(int(match.group(2)), []).append((match.group(1), True))
            if match.group(3) is not None:
                plan.setdefault(int(match.group(3)) + 1, []).append((match.group(1), False))
    return plan
