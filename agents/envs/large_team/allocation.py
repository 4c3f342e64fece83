"""Who gets a task, four ways: learned bids, the library's sealed-bid auction with its load balancer, a central
router, round-robin. Each takes the task, the workers, the time and which workers may take it (online, capable,
below capacity) and returns the winner's index (None: nobody takes it and the task is dropped) and the bids."""

from __future__ import annotations

import numpy as np

from agents.protocol.auction import AuctionConfig, LoadBalancer, SealedBidAuction, Task, Worker


def finish_times(task: Task, workers: list[Worker], now: float, eligible: np.ndarray) -> np.ndarray:
    """When each worker would finish ``task`` if it took it now (inf where it may not take it)."""
    out = np.full(len(workers), np.inf)
    for i in np.flatnonzero(eligible):
        out[i] = now + workers[i].backlog(now) + workers[i].duration(task)
    return out


def learned_winner(
    levels: np.ndarray, finish: np.ndarray, trusted: np.ndarray | None = None
) -> tuple[int | None, dict[int, float]]:
    """The highest bid level wins; ties go to the bidder who would finish first (the auctioneer knows each
    bidder's own backlog), then to the lower index. Level 0 is no bid. A bid from an agent not ``trusted``
    (a storm lowered its reputation) ranks below every trusted bid."""
    bids = {int(i): float(levels[i]) for i in np.flatnonzero((levels > 0) & np.isfinite(finish))}
    if not bids:
        return None, bids
    trust = np.ones(len(levels), dtype=bool) if trusted is None else trusted
    winner = min(bids, key=lambda i: (not trust[i], -bids[i], finish[i], i))
    return winner, bids


def prefer_trusted(eligible: np.ndarray, trusted: np.ndarray) -> np.ndarray:
    """The agents a router or the fixed auction considers: the trusted eligible ones while there are any."""
    preferred = eligible & trusted
    return preferred if preferred.any() else eligible


class FixedAuction:
    """`SealedBidAuction` (value × capability − load × finish) after a `LoadBalancer` pass, as the library runs
    them; the balancer may move queued tasks between agents before each auction."""

    def __init__(self) -> None:
        self.auction = SealedBidAuction(AuctionConfig())
        self.balancer = LoadBalancer()

    def __call__(
        self, task: Task, workers: list[Worker], now: float, eligible: np.ndarray
    ) -> tuple[int | None, dict[int, float]]:
        self.balancer.rebalance(workers, now)
        capable = [w.speed.get(task.kind, 0.0) for i, w in enumerate(workers) if eligible[i]]
        if not capable:
            return None, {}
        best = max(capable)
        bids = {}
        for i in np.flatnonzero(eligible):
            bid = self.auction.bid(workers[i], task, now, best)
            if bid is not None:
                bids[int(i)] = float(bid)
        result = self.auction.allocate(bids, task.id)
        return result.winner, bids


def central_winner(finish: np.ndarray) -> tuple[int | None, dict[int, float]]:
    """The router sends the task to whoever would finish it first (no bids)."""
    if not np.isfinite(finish).any():
        return None, {}
    return int(np.argmin(finish)), {}


class RoundRobin:
    """Capable agents in turn, ignoring load and speed."""

    def __init__(self) -> None:
        self.next = 0

    def __call__(self, eligible: np.ndarray) -> tuple[int | None, dict[int, float]]:
        n = len(eligible)
        for step in range(n):
            i = (self.next + step) % n
            if eligible[i]:
                self.next = (i + 1) % n
                return i, {}
        return None, {}
