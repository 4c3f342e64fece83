"""Task allocation by an improved sealed-bid auction, a load balancer, and round-robin as the baseline.

The design (docs/design.md#auction): the coordination layer allocates tasks by an improved auction, and a
dynamic load balancer watches every agent's workload.

Auction (`SealedBidAuction`). Each agent bids once, privately, for a task:

    bid = estimated value × capability − load_weight × expected finish time

where capability is the agent's speed on the task's kind relative to the fastest agent of the team
(0 = cannot do it: no bid), and the expected finish time is the agent's current backlog plus the time the
task would take it. The highest bid wins; the winner pays the second-highest bid or the reserve price,
whichever is higher (second-price, so bidding one's true estimate is the best strategy). When no bid
reaches the reserve price the task is not allocated and waits for the next auction.

Load balancer (`LoadBalancer`). Before each auction it looks at queued (not yet started) tasks and moves
a task from the agent with the largest backlog to the agent that would finish it soonest, when that is
sooner by more than `min_gain` time units.

Baselines: `RoundRobin` (tasks go to the capable agents in turn, ignoring load and speed) and
`EarliestFinish` (greedy: the agent that would finish the task soonest; ignores value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Task:
    """A unit of work: `size` work units of kind `kind`, worth `value`, arriving at `arrival`."""

    id: int
    kind: str
    size: float
    value: float = 1.0
    arrival: float = 0.0
    start: float | None = None
    finish: float | None = None
    agent: int | None = None


@dataclass
class Worker:
    """An agent as the allocator sees it: speed per task kind and its queue of work."""

    id: int
    speed: dict[str, float]  # work units per time unit; missing or 0 = cannot do this kind
    busy_until: float = 0.0
    queue: list[Task] = field(default_factory=list)
    done: list[Task] = field(default_factory=list)

    def can_do(self, task: Task) -> bool:
        """Whether this agent has the capability at all."""
        return self.speed.get(task.kind, 0.0) > 0

    def duration(self, task: Task) -> float:
        """Time this agent needs for the task."""
        return task.size / self.speed[task.kind]

    def backlog(self, now: float) -> float:
        """Time until this agent has finished everything it holds."""
        return max(0.0, self.busy_until - now) + sum(self.duration(t) for t in self.queue)

    def advance(self, now: float) -> None:
        """Start queued tasks (in order) whenever the agent is free, up to time `now`."""
        while self.queue and self.busy_until <= now:
            task = self.queue.pop(0)
            task.start = max(self.busy_until, task.arrival)
            task.finish = task.start + self.duration(task)
            self.busy_until = task.finish
            self.done.append(task)


@dataclass
class AuctionConfig:
    """Auction settings."""

    load_weight: float = 0.3  # value lost per unit of expected finish time
    reserve_price: float | None = None  # None = no reserve


@dataclass(frozen=True)
class AuctionResult:
    """Outcome of one sealed-bid auction."""

    task_id: int
    winner: int | None
    price: float | None
    bids: dict[int, float]


class SealedBidAuction:
    """Second-price sealed-bid auction over capability, estimated value and current load."""

    def __init__(self, config: AuctionConfig | None = None):
        self.config = config or AuctionConfig()
        self.counts = {"auctions": 0, "allocated": 0, "unallocated": 0, "revenue": 0.0}

    def bid(self, worker: Worker, task: Task, now: float, best_speed: float) -> float | None:
        """The agent's sealed bid (None when it lacks the capability)."""
        if not worker.can_do(task):
            return None
        capability = worker.speed[task.kind] / best_speed
        finish = worker.backlog(now) + worker.duration(task)
        return task.value * capability - self.config.load_weight * finish

    def allocate(self, bids: dict[int, float], task_id: int = 0) -> AuctionResult:
        """Pick the winner and price from sealed bids (ties go to the lower agent id)."""
        self.counts["auctions"] += 1
        reserve = self.config.reserve_price
        ranked = sorted(bids.items(), key=lambda kv: (-kv[1], kv[0]))
        if not ranked or (reserve is not None and ranked[0][1] < reserve):
            self.counts["unallocated"] += 1
            return AuctionResult(task_id, None, None, dict(bids))
        second = ranked[1][1] if len(ranked) > 1 else ranked[0][1]
        price = max(second, reserve) if reserve is not None else second
        self.counts["allocated"] += 1
        self.counts["revenue"] += price
        return AuctionResult(task_id, ranked[0][0], price, dict(bids))

    def assign(self, task: Task, workers: list[Worker], now: float) -> int | None:
        """Run the auction for `task` and queue it on the winner; returns the winner id (or None)."""
        capable = [w.speed.get(task.kind, 0.0) for w in workers]
        best = max(capable) if capable else 0.0
        if best <= 0:
            self.counts["auctions"] += 1
            self.counts["unallocated"] += 1
            return None
        bids = {w.id: b for w in workers if (b := self.bid(w, task, now, best)) is not None}
        result = self.allocate(bids, task.id)
        if result.winner is not None:
            _queue(task, workers[result.winner], now)
        return result.winner

    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics."""
        return dict(self.counts)


class RoundRobin:
    """Baseline: the next capable agent in turn gets the task."""

    def __init__(self):
        self.next = 0
        self.counts = {"allocated": 0}

    def assign(self, task: Task, workers: list[Worker], now: float) -> int | None:
        """Queue `task` on the next capable agent."""
        for step in range(len(workers)):
            w = workers[(self.next + step) % len(workers)]
            if w.can_do(task):
                self.next = (self.next + step + 1) % len(workers)
                _queue(task, w, now)
                self.counts["allocated"] += 1
                return w.id
        return None

    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics."""
        return dict(self.counts)


class EarliestFinish:
    """Second baseline: greedy "join the agent that would finish soonest" (load and speed, no value)."""

    def __init__(self):
        self.counts = {"allocated": 0}

    def assign(self, task: Task, workers: list[Worker], now: float) -> int | None:
        """Queue `task` on the capable agent with the earliest expected finish time."""
        options = [(w.backlog(now) + w.duration(task), w.id) for w in workers if w.can_do(task)]
        if not options:
            return None
        _queue(task, workers[min(options)[1]], now)
        self.counts["allocated"] += 1
        return min(options)[1]

    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics."""
        return dict(self.counts)


class LoadBalancer:
    """Moves queued tasks off the most loaded agent when another would finish them clearly sooner."""

    def __init__(self, min_gain: float = 1.0, max_moves: int = 4):
        self.min_gain = min_gain
        self.max_moves = max_moves
        self.moves = 0

    def rebalance(self, workers: list[Worker], now: float) -> int:
        """Migrate up to `max_moves` queued tasks; returns how many moved."""
        moved = 0
        for _ in range(self.max_moves):
            busiest = max(workers, key=lambda w: w.backlog(now))
            if not busiest.queue:
                break
            task = busiest.queue[-1]  # the task that would finish last
            current = busiest.backlog(now)
            options = [
                (w.backlog(now) + w.duration(task), w.id)
                for w in workers
                if w is not busiest and w.can_do(task)
            ]
            if not options:
                break
            finish, target = min(options)
            if finish + self.min_gain >= current:
                break
            busiest.queue.pop()
            _queue(task, workers[target], now)
            moved += 1
        self.moves += moved
        return moved

    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics."""
        return {"moves": self.moves}


def _queue(task: Task, worker: Worker, now: float) -> None:
    task.agent = worker.id
    worker.queue.append(task)
    worker.advance(now)


def workload(
    n_tasks: int = 400, kinds: tuple[str, ...] = ("search", "analysis", "writing", "review"), seed: int = 0
) -> tuple[list[Task], list[dict[str, float]]]:
    """A mixed task stream and a team of specialists and generalists (the benchmark's workload).

    Each kind has two specialists (speed 1.0 on it, 0.4 on one neighbouring kind); two generalists do
    every kind at speed 0.6. Sizes are log-normal (mean ≈ 5), arrivals Poisson at ~85 % of team capacity.
    """
    rng = np.random.default_rng(seed)
    team: list[dict[str, float]] = []
    for i, kind in enumerate(kinds):
        for _ in range(2):
            team.append({kind: 1.0, kinds[(i + 1) % len(kinds)]: 0.4})
    team += [dict.fromkeys(kinds, 0.6) for _ in range(2)]
    sizes = rng.lognormal(mean=np.log(5.0) - 0.5 * 0.6**2, sigma=0.6, size=n_tasks)
    capacity = 2 * len(kinds) * 1.0 + 2 * 0.6  # work units per time unit when everyone does what suits them
    gaps = rng.exponential(sizes.mean() / (0.85 * capacity), size=n_tasks)
    arrivals = np.cumsum(gaps)
    tasks = [
        Task(
            i,
            kinds[int(rng.integers(len(kinds)))],
            float(sizes[i]),
            float(rng.uniform(1.0, 3.0)),
            float(arrivals[i]),
        )
        for i in range(n_tasks)
    ]
    return tasks, team


def simulate_allocation(
    tasks: list[Task], team: list[dict[str, float]], allocator, balancer: LoadBalancer | None = None
) -> dict[str, Any]:
    """Feed the task stream to `allocator` (auction or round-robin); return makespan and waits.

    Tasks left unallocated (no bid reached the reserve) are re-auctioned at the next arrival.
    """
    workers = [Worker(i, dict(speed)) for i, speed in enumerate(team)]
    stream = [Task(t.id, t.kind, t.size, t.value, t.arrival) for t in tasks]
    deferred: list[Task] = []
    for task in stream:
        now = task.arrival
        for w in workers:
            w.advance(now)
        if balancer is not None:
            balancer.rebalance(workers, now)
        deferred = [t for t in deferred if allocator.assign(t, workers, now) is None]
        if allocator.assign(task, workers, now) is None:
            deferred.append(task)
    for w in workers:
        w.advance(float("inf"))
    done = [t for w in workers for t in w.done]
    waits = np.array([t.start - t.arrival for t in done])
    busy = [sum(t.finish - t.start for t in w.done) for w in workers]
    makespan = max((t.finish for t in done), default=0.0)
    return {
        "tasks": len(stream),
        "completed": len(done),
        "unallocated": len(deferred),
        "makespan": float(makespan),
        "mean_wait": float(waits.mean()) if len(waits) else 0.0,
        "p95_wait": float(np.percentile(waits, 95)) if len(waits) else 0.0,
        "utilisation_spread": float(np.std(busy) / max(1e-9, np.mean(busy))),
        "allocator": allocator.stats(),
        "balancer": balancer.stats() if balancer else None,
    }
