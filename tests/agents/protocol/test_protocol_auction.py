"""Auction allocation on hand-worked bids, the load balancer, and the round-robin comparison."""

import pytest

from agents.protocol.auction import (
    AuctionConfig,
    EarliestFinish,
    LoadBalancer,
    RoundRobin,
    SealedBidAuction,
    Task,
    Worker,
    simulate_allocation,
    workload,
)


def test_second_price_with_reserve_on_hand_worked_bids():
    auction = SealedBidAuction()
    r = auction.allocate({0: 5.0, 1: 7.0, 2: 6.0}, task_id=1)
    assert (r.winner, r.price) == (1, 6.0)  # highest bid wins, pays the second-highest
    reserve = SealedBidAuction(AuctionConfig(reserve_price=6.5)).allocate({0: 5.0, 1: 7.0, 2: 6.0})
    assert (reserve.winner, reserve.price) == (1, 6.5)  # the reserve lifts the price
    none = SealedBidAuction(AuctionConfig(reserve_price=8.0)).allocate({0: 5.0, 1: 7.0})
    assert none.winner is None and none.price is None
    tie = auction.allocate({3: 4.0, 2: 4.0})
    assert (tie.winner, tie.price) == (2, 4.0)  # ties go to the lower id
    single = auction.allocate({4: 2.5})
    assert (single.winner, single.price) == (4, 2.5)
    assert auction.stats()["allocated"] == 3


def test_bid_uses_value_capability_and_load():
    auction = SealedBidAuction(AuctionConfig(load_weight=0.5))
    fast = Worker(0, {"search": 2.0})
    slow = Worker(1, {"search": 1.0})
    blind = Worker(2, {"writing": 1.0})
    task = Task(0, "search", size=4.0, value=10.0)
    # fast: 10 × 2/2 − 0.5 × (0 + 4/2) = 9;  slow: 10 × 1/2 − 0.5 × (0 + 4/1) = 3
    assert auction.bid(fast, task, 0.0, 2.0) == pytest.approx(9.0)
    assert auction.bid(slow, task, 0.0, 2.0) == pytest.approx(3.0)
    assert auction.bid(blind, task, 0.0, 2.0) is None
    fast.queue.append(Task(9, "search", size=20.0))  # 10 time units of backlog
    # fast now: 10 − 0.5 × (10 + 2) = 4  → still wins, pays slow's 3
    workers = [fast, slow, blind]
    assert auction.assign(task, workers, 0.0) == 0
    assert auction.counts["revenue"] == pytest.approx(3.0)


def test_load_balancer_moves_queued_work_to_an_idle_agent():
    a, b = Worker(0, {"x": 1.0}), Worker(1, {"x": 1.0})
    a.busy_until = 10.0
    a.queue = [Task(1, "x", 5.0), Task(2, "x", 5.0)]
    balancer = LoadBalancer(min_gain=1.0)
    # a: 10 busy + 5 + 5 = 20 → task 2 moves to b (finishes at 5 < 20), then task 1 (b: 5 + 5 = 10 < 15).
    assert balancer.rebalance([a, b], 0.0) == 2
    assert [t.id for t in b.done + b.queue] == [2, 1]
    assert a.backlog(0.0) == pytest.approx(10.0) and b.backlog(0.0) == pytest.approx(10.0)
    assert balancer.rebalance([a, b], 0.0) == 0  # balanced: nothing more to gain


def test_round_robin_skips_incapable_agents():
    workers = [Worker(0, {"x": 1.0}), Worker(1, {"y": 1.0}), Worker(2, {"x": 1.0})]
    rr = RoundRobin()
    got = [rr.assign(Task(i, "x", 1.0, arrival=0.0), workers, 0.0) for i in range(4)]
    assert got == [0, 2, 0, 2]


def test_auction_beats_round_robin_on_the_mixed_stream():
    tasks, team = workload(n_tasks=150, seed=4)
    rr = simulate_allocation(tasks, team, RoundRobin())
    auc = simulate_allocation(tasks, team, SealedBidAuction(), LoadBalancer())
    ef = simulate_allocation(tasks, team, EarliestFinish())
    assert rr["completed"] == auc["completed"] == ef["completed"] == 150
    assert auc["makespan"] < rr["makespan"] and auc["mean_wait"] < 0.5 * rr["mean_wait"]
