"""An operator's hand on a served large team, in the middle of a stream: take an agent offline now, or bring it
back (`LargeTeamEnv.set_agent_online`), and what each served step reports of the team's load.

Taking an agent offline reuses the fault mechanism (it goes offline, leaves the shared state and gets no new
task), but where a fault loses what the agent held, an operator's take-offline hands it over: every task it held
(the one in progress restarts) goes to the online agent who can do it and would finish it first, preferring
those below their capacity — when that agent would still finish it by its deadline. A task nobody can finish in
time any more is dropped, as the allocation drops an arriving one nobody can do in time: on an overloaded team,
handing over late work made the next 100 tasks 3–7 points less often in time than losing it (bench
`large_team_offline.py`). An agent brought back starts idle and bids again from the next task.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

ROOM_FIRST = (
    1e9  # added to the finish time of an agent at capacity: a hand-over goes there only if all are full
)


def stream_length(options: Mapping[str, Any], max_steps: int) -> int:
    """How many tasks this episode plays: ``options["tasks"]`` (a served stream), else ``max_steps``."""
    count = options.get("tasks")
    if count is None:
        return max_steps
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= max_steps:
        raise ValueError(f"reset options: tasks must be a whole number from 1 to {max_steps}")
    return count


def load(env: Any) -> dict[str, list]:
    """Each agent's backlog (time units of work it holds) now and whether it is online (a served step's info)."""
    return {
        "backlog": [round(float(w.backlog(env.now)), 3) for w in env.workers],
        "online": [bool(x) for x in env.online],
    }


def _receiver(env: Any, kind: str, size: float) -> tuple[int | None, float]:
    """The online agent who can do a task of ``kind`` and would finish it first, those with room first, and when
    it would finish it (None, inf: nobody online can do that kind)."""
    speed = env.speeds[:, env.kinds.index(kind)] * env.online
    if not (speed > 0).any():
        return None, float("inf")
    backlog = np.array([w.backlog(env.now) for w in env.workers])
    finish = np.where(speed > 0, env.now + backlog + size / np.where(speed > 0, speed, 1.0), np.inf)
    full = env._held() >= env.capacity
    best = int(np.argmin(finish + np.where(full, ROOM_FIRST, 0.0)))
    return best, float(finish[best])


def take_offline(env: Any, agent: str) -> list[dict[str, Any]]:
    """Agent ``agent`` leaves now; returns the hand-overs ``{"task", "from", "to", "dropped"}`` (``to`` None: the
    task is dropped, ``dropped`` says why: "late" (nobody would finish it by its deadline) or "nobody" (nobody
    online can do its kind))."""
    i = env._index[agent]
    if not env.online[i]:
        return []
    w = env.workers[i]
    held = [t for t in w.done if t.finish > env.now] + list(w.queue)
    w.queue.clear()
    w.done = [t for t in w.done if t.finish <= env.now]
    w.speed, w.busy_until = {}, env.now
    env.online[i] = False
    env._publish(i)
    env.state_sync.take_offline(i)
    env.agents = [a for a in env.agents if a != agent]
    env.first_fault = env.t if env.first_fault is None else env.first_fault
    handed = []
    for task in held:
        task.start = task.finish = None
        to, finish = _receiver(env, task.kind, task.size)
        why = "nobody" if to is None else "late" if finish > env.deadline[task.id] else None
        if why is None:
            task.agent = to
            env.workers[to].queue.append(task)
            env.workers[to].advance(env.now)
            env._publish(to)
        else:
            env.dropped.add(task.id)
        handed.append(
            {"task": task.id, "from": agent, "to": None if why else env.possible_agents[to], "dropped": why}
        )
    return handed


def bring_back(env: Any, agent: str) -> None:
    """Agent ``agent`` is online again, idle, reachable by gossip, and bids from the next task."""
    i = env._index[agent]
    if env.online[i]:
        return
    w = env.workers[i]
    w.speed = {k: float(s) for k, s in zip(env.kinds, env.speeds[i], strict=True) if s > 0}
    w.busy_until = env.now
    env.online[i] = True
    net = env.state_sync.net  # undo `TeamGossip.take_offline`: back in the partition of the online agents
    net.offline[i] = False
    peers = np.flatnonzero(~net.offline)
    net.group[i] = net.group[peers[peers != i][0]] if len(peers) > 1 else 0
    env._publish(i)
    if env.agents:  # mid-episode: it acts again (an ended episode stays ended)
        back = set(env.agents) | {agent}
        env.agents = [a for a in env.possible_agents if a in back]
