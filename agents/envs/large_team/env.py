"""A support centre of 10–100 agents: a stream of tasks (a kind, a size, a value, a deadline) arrives one per
step, and the spec's ``allocation`` decides who does each (`agents.envs.large_team.allocation`).

Every agent acts at every step: its action is its bid for the arriving task, 0 (no bid) to ``bid_levels``. The bids
decide only under ``allocation: auction`` (the learned bidders); the other allocations ignore them, so the same
environment measures the fixed auction, the central router and round-robin. A task nobody takes is dropped.

What an agent sees (`OBS_FIELDS`): its own side exactly (whether it can do the task, how fast, its backlog, whether it
would finish in time), the rest of the team as the shared state tells it (`state_sync`: gossip, possibly stale, or the
controller): whether someone else would finish sooner, how busy the team is, how its speed compares with the fastest
agent it believes online, its reputation, whether its codebook is current. The team reward, shared by every agent: the
task's value if the winner will finish it by its deadline, less ``cost_per_time`` per time unit of work. An agent in
``fault_schedule`` goes offline when its task arrives: it is terminated, and the tasks it held are lost. An operator
takes agents offline for one episode (a served request) through ``reset(options={"offline": [agent, ...], "faults":
["agent@task", ...]})``, or in the middle of one with ``set_agent_online`` (its tasks are handed over, not lost:
`operator`); ``options["tasks"]`` plays only the stream's first tasks (a deployment's stream of that many).

Every step's info carries that step's allocation under ``allocation`` (the task, the bids by agent name, the
winner's name or None), which the serving runtime copies into each decision record. The last step's info carries
the episode's figures (`EpisodeFigures`): tasks done in time, waits, drops, the tasks
done in time among the 100 after the first fault, messages and convergence rounds of the shared state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agents.envs.large_team.allocation import (
    FixedAuction,
    RoundRobin,
    central_winner,
    finish_times,
    learned_winner,
    prefer_trusted,
)
from agents.envs.large_team.groups import parse_groups
from agents.envs.large_team.operator import bring_back, load, stream_length, take_offline
from agents.envs.large_team.params import LargeTeamParams, fault_plan, storm_plan
from agents.envs.large_team.state_sync import TeamState
from agents.envs.large_team.storms import StormGuard
from agents.envs.large_team.summary import WINDOW, allocation_summary
from agents.errors import SpecError
from agents.protocol.auction import Task, Worker

OBS_FIELDS = (
    "capable", "relative_speed", "backlog", "fill", "value", "slack", "own_margin", "own_in_time",
    "best_other_margin", "best_placed", "team_busy", "reputation", "codebook_current", "full",
)  # fmt: skip
MEAN_SIZE = 5.0
AFTER_FAULT = 100  # tasks after the first fault over which `in_time_after` counts


class LargeTeamEnv(ParallelEnv):
    """Tasks allocated over a large team; see the module docstring."""

    metadata = {"name": "large_team", "render_modes": []}
    shares_state = True  # by gossip or a controller (state_sync): learned messages are not needed for it
    parameters = LargeTeamParams.describe()
    observation_kind = "vector"
    takes_team = True
    validate_params = staticmethod(LargeTeamParams.problems)

    def __init__(self, *, team: Sequence[Mapping[str, Any]] | None = None, **params: Any):
        p = LargeTeamParams.build("large_team", params)
        self.p = p
        self.groups = parse_groups(p.groups)
        self.kinds = list(p.kinds)
        self.possible_agents = [m for g in self.groups for m in g.members()]
        self.group_of = {m: g.id for g in self.groups for m in g.members()}
        self.speeds = np.array(
            [[dict(g.speeds).get(k, 0.0) for k in self.kinds] for g in self.groups for _ in range(g.count)]
        )
        self.capacity = np.array([g.capacity for g in self.groups for _ in range(g.count)])
        self.n = len(self.possible_agents)
        self.scale = MEAN_SIZE * p.slack
        box = spaces.Box(-4.0, 4.0, shape=(len(OBS_FIELDS),), dtype=np.float32)
        self._obs_space = box
        self._act_space = spaces.Discrete(p.bid_levels + 1)
        self._state_space = spaces.Box(-4.0, 4.0, shape=(3 * self.n + 2 + len(self.kinds),), dtype=np.float32)
        self.agents: list[str] = []
        self.allocations: list[dict[str, Any]] = []  # per task: who bid what, who won (decision logs, pages)
        self.backlog_history: list[
            np.ndarray
        ] = []  # per task: each agent's backlog when it arrived (run pages)

    # ---- spec hooks -----------------------------------------------------------------------------------
    @classmethod
    def validate_team(cls, agents: Sequence[Any], params: Mapping[str, Any]) -> list[SpecError]:
        """The canvas draws one agent per group: their ids must be the groups' ids."""
        if LargeTeamParams.problems(dict(params)):
            return []  # the parameter check speaks
        merged = {**LargeTeamParams.defaults(), **params}
        groups = [g.id for g in parse_groups(merged["groups"])]
        ids = [a.get("id") if isinstance(a, Mapping) else getattr(a, "id", None) for a in agents]
        errors = []
        missing, extra = [g for g in groups if g not in ids], [i for i in ids if i not in groups]
        if missing:
            errors.append(SpecError("$.agents", f"draw one agent per group: add {', '.join(missing)}"))
        if extra:
            errors.append(
                SpecError("$.agents", f"no group declares {', '.join(map(str, extra))}: declare it in groups")
            )
        return errors

    @classmethod
    def group_members(cls, params: Mapping[str, Any]) -> dict[str, list[str]]:
        """Each group's members, by the group's id (its one agent on the canvas), in order."""
        merged = {**LargeTeamParams.defaults(), **params}
        return {g.id: g.members() for g in parse_groups(merged["groups"])}

    @classmethod
    def member_ids(cls, params: Mapping[str, Any]) -> list[str]:
        """The agents the environment creates (each group's members), in order."""
        return [m for members in cls.group_members(params).values() for m in members]

    # ---- ParallelEnv ----------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Box:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    @property
    def state_space(self) -> spaces.Box:
        return self._state_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.rng = np.random.default_rng(seed)
        self.tasks = self._task_stream()[: stream_length(options or {}, self.p.max_steps)]
        self.handovers: list[dict[str, Any]] = []  # an operator's take-offline: who took its tasks (`operator`)
        self.workers = [
            Worker(i, {k: float(s) for k, s in zip(self.kinds, self.speeds[i], strict=True) if s > 0})
            for i in range(self.n)
        ]
        for w in self.workers:  # the centre is already at work: a warm backlog
            w.busy_until = float(self.rng.uniform(0.0, 2 * MEAN_SIZE))
        self.online = np.ones(self.n, dtype=bool)
        self.reputation = np.ones(self.n)
        self.codebook = 0
        self.lost: set[int] = set()
        self.dropped: set[int] = set()
        self.first_fault: int | None = None
        self.state_sync = TeamState(
            self.n, self.p.state_sync, self.p.message_quota, int(self.rng.integers(2**31)), 8
        )
        for i, w in enumerate(self.workers):
            self.state_sync.values[i, 0, 0] = w.busy_until
        p, seed = self.p, self.state_sync.seed + 1  # storms: a seed of their own, the task streams unchanged
        self.guard = StormGuard(
            self.n, p.message_quota, p.storm_defence, p.storm_messages, p.message_cost, seed
        )
        self.fixed, self.round_robin = FixedAuction(), RoundRobin()
        self.allocations, self.backlog_history = [], []
        self.t, self.now = 0, self.tasks[0].arrival
        self.agents = list(self.possible_agents)
        self._faults = self._fault_plan(options or {})
        self._fail(self._faults.get(0, []))
        self._storm(self._storms.get(0, []))
        self.agents = [a for i, a in enumerate(self.possible_agents) if self.online[i]]
        self._prepare()
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: Mapping[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        levels = np.zeros(self.n)
        for a, act in actions.items():
            levels[self._index[a]] = int(act)
        reward = self._allocate(levels)
        acting = list(self.agents)
        self.t += 1
        ended = self.t >= len(self.tasks)
        failed: list[str] = []
        if not ended:
            self._advance_to(self.tasks[self.t].arrival)
            failed = self._fail(self._faults.get(self.t, []))
            self._storm(self._storms.get(self.t, []))
            if self.p.codebook_every and self.t % self.p.codebook_every == 0:
                self.codebook += 1
                self._publish(0)
            self._prepare()
        obs = self._observations(acting)
        rewards = dict.fromkeys(acting, reward)
        terms = {a: a in failed for a in acting}
        truncs = {a: ended for a in acting}
        info: dict[str, Any] = {
            "winner": self.allocations[-1]["winner"],
            "messages": self.state_sync.messages(),
            "allocation": self._named_allocation(self.allocations[-1]),
            "load": load(self) | {"handed_over": len(self.handovers)},  # the deployment page's heat map
        }
        if ended:
            info |= self.figures()
        infos = {a: dict(info) for a in acting}
        self.agents = [] if ended else [a for a in acting if a not in failed]
        return obs, rewards, terms, truncs, infos

    def set_agent_online(self, agent: str, online: bool) -> dict[str, np.ndarray]:
        """An operator takes ``agent`` offline now, its tasks handed over, or brings it back (`operator`);
        returns the arriving task's observations of the agents acting now. ValueError: no such agent."""
        if agent not in self._index:
            raise ValueError(f"no agent {agent!r} in this team")
        if online:
            bring_back(self, agent)
        else:
            self.handovers += take_offline(self, agent)
        if self.agents:
            self._prepare()
        return self._observations()

    def state(self) -> np.ndarray:
        now = self.now
        backlog = self._backlog / self.scale
        task = self.tasks[min(self.t, len(self.tasks) - 1)]
        kind = np.zeros(len(self.kinds))
        kind[self.kinds.index(task.kind)] = 1.0
        head = [task.value / 3.0, (self.deadline[task.id] - now) / self.scale]
        parts = [np.clip(backlog, -4, 4), self._held() / self.capacity, self.online.astype(float), head, kind]
        return np.concatenate(parts).astype(np.float32)

    # ---- the task stream and time ---------------------------------------------------------------------
    def _task_stream(self) -> list[Task]:
        rng, T = self.rng, self.p.max_steps
        capacity = float(self.speeds.max(axis=1).sum())  # work units per time unit, each at its best kind
        sizes = rng.lognormal(np.log(MEAN_SIZE) - 0.18, 0.6, size=T)
        arrivals = np.cumsum(rng.exponential(MEAN_SIZE / (self.p.load * capacity), size=T))
        kinds = rng.integers(len(self.kinds), size=T)
        values = rng.uniform(1.0, 3.0, size=T)
        self.deadline = arrivals + sizes * self.p.slack * rng.uniform(0.5, 1.5, size=T)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        return [
            Task(i, self.kinds[kinds[i]], float(sizes[i]), float(values[i]), float(arrivals[i]))
            for i in range(T)
        ]

    def _fault_plan(self, options: Mapping[str, Any]) -> dict[int, list[str]]:
        """The spec's fault schedule plus this episode's (an operator's): ``options["offline"]`` names agents
        offline from the first task, ``options["faults"]`` adds "agent@task" entries. ValueError for an agent
        the team does not have or a malformed entry."""
        offline, extra = list(options.get("offline") or ()), list(options.get("faults") or ())
        problems = LargeTeamParams.problems(
            {**self.p.as_dict(), "fault_schedule": [f"{a}@0" for a in offline] + extra}
        )
        if problems:
            raise ValueError(f"reset options: {problems[0].message}")
        faults = [*self.p.fault_schedule, *extra, *(f"{a}@0" for a in offline)]
        self._storms = storm_plan(faults)
        return fault_plan(faults)

    def _advance_to(self, now: float) -> None:
        length = self.p.round_length
        for r in range(int(self.now // length) + 1, int(now // length) + 1):
            self._round(r * length)
        self.now = now
        for w in self.workers:
            w.advance(now)

    def _round(self, at: float) -> None:
        """One gossip round at time ``at``: storm floods (each delivered message costs its receiver work), the
        state sync's round, then each agent's messages against the quota (`storms.StormGuard`)."""
        guard, net = self.guard, self.state_sync.net
        sent_before = net.sent.copy()
        attempted, received = guard.flood(self.online)
        if received.any():
            for i in np.flatnonzero(received):
                w = self.workers[i]
                w.advance(at)  # the interruption comes after the tasks it has started by then
                w.busy_until = max(w.busy_until, at) + received[i] * self.p.message_cost
        self.state_sync.round()
        for i in guard.end_round(attempted + net.sent - sent_before):
            if self.online[i]:
                self._publish(i)

    def _storm(self, changes: list[tuple[str, bool]]) -> None:
        """Agents that start (True) or stop (False) flooding the team."""
        for name, on in changes:
            if name in self._index and self.online[self._index[name]]:
                self.guard.storming[self._index[name]] = on

    def _held(self) -> np.ndarray:
        return np.array([len(w.queue) + (w.busy_until > self.now) for w in self.workers], dtype=float)

    def _publish(self, i: int) -> None:
        w = self.workers[i]
        self.state_sync.publish(
            i, self.now + w.backlog(self.now), bool(self.online[i]), self.reputation_of(i), self.codebook
        )

    def reputations(self) -> np.ndarray:
        """What the team knows of each agent: its in-time record × its conduct under the quota (`storms`)."""
        return self.reputation * self.guard.conduct

    def reputation_of(self, i: int) -> float:
        """`reputations` of agent ``i``."""
        return float(self.reputation[i] * self.guard.conduct[i])

    def _fail(self, names: list[str]) -> list[str]:
        failed = [a for a in names if a in self.agents]
        for a in failed:
            i = self._index[a]
            w = self.workers[i]
            self.online[i] = False
            self.lost |= {t.id for t in w.queue} | {t.id for t in w.done if t.finish > self.now}
            w.queue.clear()
            w.done = [t for t in w.done if t.finish <= self.now]
            w.speed, w.busy_until = {}, self.now
            self._publish(i)
            self.state_sync.take_offline(i)
            self.first_fault = self.t if self.first_fault is None else self.first_fault
        return failed

    # ---- allocation -------------------------------------------------------------------------------------
    def _allocate(self, levels: np.ndarray) -> float:
        task, now = self.tasks[self.t], self.now
        eligible, finish = self._eligible, self._finish
        how, trusted = self.p.allocation, self.guard.trusted()
        if how == "auction":
            winner, bids = learned_winner(levels, finish, trusted)
        elif how == "fixed_auction":
            winner, bids = self.fixed(task, self.workers, now, prefer_trusted(eligible, trusted))
            finish = finish_times(task, self.workers, now, eligible)  # the balancer may have moved work
        elif how == "central":
            winner, bids = central_winner(np.where(prefer_trusted(eligible, trusted), finish, np.inf))
        else:
            winner, bids = self.round_robin(eligible)
        self.allocations.append({"task": task.id, "kind": task.kind, "bids": bids, "winner": winner})
        self.backlog_history.append(self._backlog.copy())
        if winner is None:
            self.dropped.add(task.id)
            return 0.0
        w = self.workers[winner]
        duration = w.duration(task)
        in_time = float(finish[winner] <= self.deadline[task.id])
        task.agent = winner
        w.queue.append(task)
        w.advance(now)
        self.reputation[winner] = 0.9 * self.reputation[winner] + 0.1 * in_time
        self._publish(winner)
        return task.value * in_time - self.p.cost_per_time * duration

    def allocation_summary(self, window: int = WINDOW) -> dict[str, Any]:
        """Backlogs over the last ``window`` tasks, wins and messages of this episode (`summary`)."""
        return allocation_summary(self, window)

    def _named_allocation(self, allocation: Mapping[str, Any]) -> dict[str, Any]:
        """One allocation with agents by name, as the decision log records it (`serving.decisions`)."""
        names = self.possible_agents
        winner = allocation["winner"]
        return {
            "task": allocation["task"],
            "kind": allocation["kind"],
            "bids": {names[i]: bid for i, bid in allocation["bids"].items()},
            "winner": names[winner] if winner is not None else None,
        }

    # ---- observations -----------------------------------------------------------------------------------
    def _prepare(self) -> None:
        """Everything the observations of the arriving task need, computed once for all agents."""
        task, now = self.tasks[self.t], self.now
        k = self.kinds.index(task.kind)
        speed = self.speeds[:, k] * self.online
        held = self._held()
        self._eligible = (speed > 0) & (held < self.capacity)
        self._backlog = np.array([w.backlog(now) for w in self.workers])
        with np.errstate(divide="ignore"):
            duration = np.where(speed > 0, task.size / np.where(speed > 0, speed, 1.0), np.inf)
        self._finish = np.where(self._eligible, now + self._backlog + duration, np.inf)
        believed = self.state_sync.believed()  # [viewer, owner, field]
        other_finish = np.maximum(now, believed[:, :, 0]) + duration[None, :]
        usable = (believed[:, :, 1] > 0.5) & np.isfinite(other_finish)
        np.fill_diagonal(usable, False)
        best_other = np.where(usable, other_finish, np.inf).min(axis=1)
        # the fastest speed on this kind among the agents each viewer believes online (its own exactly)
        known = np.where(believed[:, :, 1] > 0.5, self.speeds[None, :, k], 0.0)
        np.fill_diagonal(known, speed)
        deadline = self.deadline[task.id]
        self._obs = {
            "capable": (speed > 0).astype(float),
            "relative_speed": speed / np.maximum(known.max(axis=1), 1e-9),
            "backlog": self._backlog / self.scale,
            "fill": held / self.capacity,
            "value": np.full(self.n, task.value / 3.0),
            "slack": np.full(self.n, (deadline - now) / self.scale),
            "own_margin": np.where(np.isfinite(self._finish), (deadline - self._finish) / self.scale, -4.0),
            "own_in_time": (self._finish <= deadline).astype(float),
            "best_other_margin": np.where(
                np.isfinite(best_other), (deadline - best_other) / self.scale, -4.0
            ),
            "best_placed": (self._finish <= best_other).astype(float),
            "team_busy": (believed[:, :, 0] > now).mean(axis=1),
            "reputation": self.reputations(),
            "codebook_current": (believed[:, 0, 3] >= self.codebook).astype(float),
            "full": (held >= self.capacity).astype(float),
        }

    def _observations(self, agents: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        table = np.clip(np.stack([self._obs[f] for f in OBS_FIELDS], axis=1), -4.0, 4.0).astype(np.float32)
        return {a: table[self._index[a]] for a in (self.agents if agents is None else agents)}

    # ---- the episode's figures --------------------------------------------------------------------------
    def figures(self) -> dict[str, Any]:
        """Tasks done in time (share of all that arrived), waits, drops, tasks done in time among the 100 after
        the first fault, and the shared state's messages and rounds."""
        for w in self.workers:
            w.advance(float("inf"))
        done = {t.id: t for w in self.workers for t in w.done if t.id not in self.lost}
        in_time = np.array([t.id in done and done[t.id].finish <= self.deadline[t.id] for t in self.tasks])
        waits = np.array([t.start - t.arrival for t in done.values()])
        figures: dict[str, Any] = {
            "in_time": float(in_time.mean()),
            "value_in_time": float(
                sum(t.value for t in self.tasks if in_time[t.id]) / sum(t.value for t in self.tasks)
            ),
            "mean_wait": float(waits.mean()) if len(waits) else 0.0,
            "p95_wait": float(np.percentile(waits, 95)) if len(waits) else 0.0,
            "dropped": len(self.dropped) / len(self.tasks),
            "lost": len(self.lost) / len(self.tasks),
            "success": float(in_time.mean()),
            "in_time_flags": in_time.astype(int).tolist(),  # per task, in arrival order
            "load_spread": float(
                np.std([len(w.done) for w in self.workers])
                / max(1e-9, np.mean([len(w.done) for w in self.workers]))
            ),
        }
        if self.first_fault is not None:
            after = in_time[self.first_fault : self.first_fault + AFTER_FAULT]
            figures["in_time_after"] = float(after.mean()) if len(after) else None
            figures["in_time_before"] = (
                float(in_time[: self.first_fault].mean()) if self.first_fault else None
            )
        figures["reputation_lowest"] = float(self.guard.lowest.min())
        return figures | self.state_sync.stats() | self.guard.stats()
