"""What a run page shows of one large-team episode: each agent's backlog over the last tasks (a heat map of
agents × time), the tasks each agent won, and what keeping the team's state in sync cost — the messages of
the mode the spec chose beside what the central controller would have sent for the same changes, and the
quota hits (agent-rounds that gossiped with one peer only because the communication quota was reached), and the
storms (`storms`): how many were detected, the agent-rounds over the quota, the messages throttled, each agent's
reputation at the end and who stormed."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

WINDOW = 50  # tasks the backlog heat map covers (the episode's last ones)


def allocation_summary(env: Any, window: int = WINDOW) -> dict[str, Any]:
    """The summary of ``env``'s current (or last) episode; keys as the "allocation" run event declares them
    (`training.event_payloads.AllocationPayload`). Backlogs are in the environment's time units."""
    history = env.backlog_history
    recent = history[-window:] if window > 0 else []
    first = len(history) - len(recent)
    wins = Counter(a["winner"] for a in env.allocations if a["winner"] is not None)
    stats = env.state_sync.stats()
    return {
        "allocation": env.p.allocation,
        "state_sync": stats["state_sync"],
        "agents": list(env.possible_agents),
        "tasks": list(range(first, first + len(recent))),
        "backlog": [[round(float(column[i]), 3) for column in recent] for i in range(env.n)],
        "wins": [int(wins.get(i, 0)) for i in range(env.n)],
        "dropped": sum(a["winner"] is None for a in env.allocations),
        "messages": int(stats["messages"]),
        "gossip_messages": int(stats["gossip_messages"]),
        "central_messages": int(stats["central_messages"]),
        "quota_hits": int(stats["quota_hits"]),
        "storms": int(env.guard.storms),
        "storm_rounds": int(env.guard.storm_rounds),
        "throttled": int(env.guard.throttled),
        "reputations": [round(float(r), 3) for r in env.reputations()],
        "stormers": [env.possible_agents[i] for i in np.flatnonzero(env.guard.ever)],
    }
