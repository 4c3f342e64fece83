"""`stats()` of every communication component, checked against values worked out by hand for a small,
known message log — and each one a plain JSON dict (they travel in `metrics` events).
"""

import json
import math

import numpy as np
import pytest

from agents.protocol import (
    CodebookDriftMonitor,
    CodecConfig,
    EarliestFinish,
    FifoLink,
    GossipNetwork,
    HistoryCompressor,
    LoadBalancer,
    PriorityScheduler,
    RoundRobin,
    SealedBidAuction,
    SemanticCodec,
    Task,
    Worker,
)
from agents.protocol.auction import AuctionConfig
from agents.protocol.channels import ChannelConfig
from agents.protocol.wire import OVERHEAD_BYTES


def plain(stats):
    assert isinstance(stats, dict)
    assert json.loads(json.dumps(stats)) == stats
    return stats


# The log: every message created at t = 0 ms, in this order (sender, channel asked for, bytes).
LOG = [
    (1, "urgent", 100),  # m1
    (1, "urgent", 100),  # m2
    (1, "urgent", 100),  # m3: sender 1's urgent quota (2) is spent: demoted to regular, reputation 0.5
    (2, "regular", 400),  # m4
    (3, "background", 800),  # m5
    (1, "urgent", 100),  # m6: sender 1's reputation 0.5 < 0.6 demotes it to regular before any quota
    (3, "background", 800),  # m7: the background queue (limit 1) is full: dropped
]


def test_priority_scheduler_stats_for_a_known_log():
    config = ChannelConfig(
        link_bytes_per_ms=100.0,  # urgent lane 20 B/ms, shared lane 80 B/ms
        quota_per_s={"urgent": 2.0, "regular": 50.0, "background": 200.0},
        reputation_penalty=0.5,
        budget_ms={"urgent": 8.0, "regular": 17.0, "background": 5000.0},
        queue_limit={"urgent": 16, "regular": 16, "background": 1},
    )
    link = PriorityScheduler(config)
    link.advance(0.0)
    admitted = [link.submit(sender, channel, size, 0.0) for sender, channel, size in LOG]
    assert [m.channel if m else None for m in admitted] == [
        "urgent", "urgent", "regular", "regular", "background", "regular", None,
    ]  # fmt: skip
    link.advance(1000.0)
    # Urgent lane (20 B/ms): m1 0→5, m2 5→10.
    # Shared lane (80 B/ms): m3 0→1.25; background is owed 10 % of the shared bytes, so m5 1.25→11.25;
    # then m4 11.25→16.25 and m6 16.25→17.5.
    stats = plain(link.stats())
    assert {k: stats[k] for k in link.counts} == {
        "submitted": 7,
        "demoted_quota": 1,
        "demoted_reputation": 1,
        "dropped_quota": 0,
        "dropped_queue_full": 1,
    }
    assert stats["agents_below_demote"] == 1  # sender 1
    assert stats["urgent"] == pytest.approx(
        # latencies [5, 10]: p95 = 5 + 0.95 × 5; 10 > 8
        {"delivered": 2, "queued": 0, "p50_ms": 7.5, "p95_ms": 9.75, "max_ms": 10.0, "budget_ms": 8.0,
         "over_budget": 1}
    )  # fmt: skip
    assert stats["regular"] == pytest.approx(
        # latencies [1.25, 16.25, 17.5]: p95 = 16.25 + 0.9 × 1.25; 17.5 > 17
        {"delivered": 3, "queued": 0, "p50_ms": 16.25, "p95_ms": 17.375, "max_ms": 17.5, "budget_ms": 17.0,
         "over_budget": 1}
    )  # fmt: skip
    assert stats["background"] == pytest.approx(
        {"delivered": 1, "queued": 0, "p50_ms": 11.25, "p95_ms": 11.25, "max_ms": 11.25, "budget_ms": 5000.0,
         "over_budget": 0}
    )  # fmt: skip


def test_fifo_link_stats_for_the_same_log():
    link = FifoLink(link_bytes_per_ms=100.0, queue_limit=6)
    link.advance(0.0)
    for sender, channel, size in LOG:
        link.submit(sender, channel, size, 0.0)
    link.advance(1000.0)
    # One lane of 100 B/ms in arrival order: m1 1, m2 2, m3 3, m4 7, m5 15, m6 16 ms; m7 finds it full.
    # By the channel asked for: urgent [1, 2, 3, 16] → p95 = 3 + 0.85 × 13.
    stats = plain(link.stats())
    assert stats["dropped_queue_full"] == 1
    assert stats["urgent"] == pytest.approx({"delivered": 4, "p95_ms": 14.05})
    assert stats["regular"] == {"delivered": 1, "p95_ms": 7.0}
    assert stats["background"] == {"delivered": 1, "p95_ms": 15.0}


def test_auction_and_baseline_stats():
    # w0 does "x" at speed 2, w1 at speed 1; w2 does only "y". load_weight 0.3, reserve 0.5.
    workers = [Worker(0, {"x": 2.0}), Worker(1, {"x": 1.0}), Worker(2, {"y": 1.0})]
    auction = SealedBidAuction(AuctionConfig(reserve_price=0.5))
    # t1: w0 bids 3 × 1 − 0.3 × 2 = 2.4, w1 bids 3 × 0.5 − 0.3 × 4 = 0.3: w0 pays max(0.3, reserve) = 0.5
    assert auction.assign(Task(1, "x", 4.0, 3.0), workers, 0.0) == 0
    # t2: w0 now has 2 time units of work: 3 − 0.3 × (2 + 2) = 1.8 against 0.3 again: w0, 0.5
    assert auction.assign(Task(2, "x", 4.0, 3.0), workers, 0.0) == 0
    # t3: nobody does "z" (no auction held, but counted); t4: w2's only bid 1 − 0.3 × 4 = −0.2 < reserve
    assert auction.assign(Task(3, "z", 1.0), workers, 0.0) is None
    assert auction.assign(Task(4, "y", 4.0, 1.0), workers, 0.0) is None
    assert plain(auction.stats()) == pytest.approx(
        {"auctions": 4, "allocated": 2, "unallocated": 2, "revenue": 1.0}
    )

    robin, workers = RoundRobin(), [Worker(0, {"x": 1.0}), Worker(1, {"x": 1.0}), Worker(2, {"y": 1.0})]
    winners = [robin.assign(Task(i, "x", 1.0), workers, 0.0) for i in range(3)]
    assert winners == [0, 1, 0] and plain(robin.stats()) == {"allocated": 3}  # w2 cannot do "x"

    greedy, workers = EarliestFinish(), [Worker(0, {"x": 1.0}), Worker(1, {"x": 0.5})]
    # finish times: w0 2 vs w1 4 → w0; w0 4 vs w1 4 → tie to the lower id, w0; w0 6 vs w1 4 → w1
    winners = [greedy.assign(Task(i, "x", 2.0), workers, 0.0) for i in range(3)]
    assert winners == [0, 0, 1] and plain(greedy.stats()) == {"allocated": 3}


def test_load_balancer_counts_its_moves():
    workers = [Worker(0, {"x": 1.0}), Worker(1, {"x": 1.0})]
    for i in range(3):  # three tasks of 2 on w0: one runs, two wait; backlog 6 against 0
        workers[0].queue.append(Task(i, "x", 2.0))
    workers[0].advance(0.0)
    balancer = LoadBalancer(min_gain=1.0)
    # The last queued task finishes at 2 on w1 instead of 6: moved. Then w0's backlog is 4 and the other
    # queued task would finish at 4 on w1 too: no gain, so it stays.
    assert balancer.rebalance(workers, 0.0) == 1
    assert plain(balancer.stats()) == {"moves": 1}
    assert [t.id for t in workers[1].done] == [2]


def test_gossip_stats_through_a_partition():
    net = GossipNetwork(2)
    net.partition([[0], [1]])
    net.update(0)
    net.step()  # agent 0's digest goes to the other side of the partition: one message, lost
    stats = plain(net.stats())
    assert (stats["messages"], stats["lost_messages"], stats["pending_changes"]) == (1, 1, 1)
    assert stats["converged"] is False and stats["converged_share"] == 0.5  # agent 1 lacks version 1
    assert stats["rounds_median"] is None
    net.heal()
    assert net.run_until_converged(20) == 1
    # round 1: digest, reply (the ack, asking for key 0) and the entry: three messages, one entry; the
    # change made in round 0 is everywhere after round 1, so it took 2 rounds; each agent handled
    # 1 + 3 messages in 2 rounds
    assert plain(net.stats()) == {
        "agents": 2,
        "round": 2,
        "changes": 1,
        "messages": 4,
        "messages_per_change": 4.0,
        "entries_sent": 1,
        "lost_messages": 1,
        "anti_entropy_runs": 0,
        "storm_fallbacks": 0,
        "pending_changes": 0,
        "converged": True,
        "converged_share": 1.0,
        "rounds_median": 2.0,
        "rounds_p95": 2.0,
        "rounds_max": 2,
        "max_node_messages_per_round": 2.0,
    }


@pytest.fixture(scope="module")
def codec_and_traffic():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 16))
    labels = [f"i{v}" for v in rng.integers(4, size=200)]
    return SemanticCodec(CodecConfig(n_codes=8, residual_dims=2, residual_bits=2)).fit(x, labels), x


def test_codec_and_history_stats(codec_and_traffic):
    codec, x = codec_and_traffic
    codes, levels = codec.encode(x[:10])
    stats = plain(codec.stats())
    # 8 codes → 3 bits, plus 2 residual dims × 2 bits
    assert (stats["codebook_version"], stats["n_codes"], stats["bits_per_message"]) == (1, 8, 7)
    assert (stats["encoded"], stats["refits"]) == (10, 0)
    assert 0 <= stats["intent_kept_by_search"] <= stats["closed_loop_retries"]

    everything = HistoryCompressor(codec, keep_recent=10)  # the 10 newest keep their residuals: all
    frame = everything.to_frame(codes, levels)
    # each message: 3 code bits + 1 "kept" bit + 4 residual bits = 80 bits = 10 bytes, plus the framing
    assert len(frame) == OVERHEAD_BYTES + 10
    assert plain(everything.stats()) == {
        "messages": 10,
        "residuals_kept": 10,
        "bytes_out": 23,
        "residual_keep_rate": 1.0,
    }
    newest = HistoryCompressor(codec, keep_recent=1)
    newest.to_frame(codes, levels)
    stats = plain(newest.stats())
    kept = stats["residuals_kept"]
    assert stats["messages"] == 10 and 1 <= kept <= 10 and stats["residual_keep_rate"] == kept / 10
    assert stats["bytes_out"] == OVERHEAD_BYTES + math.ceil((10 * 4 + kept * 4) / 8)


def test_drift_monitor_stats(codec_and_traffic):
    codec, x = codec_and_traffic
    normal = CodebookDriftMonitor(codec)
    assert normal.observe(x[:100], now=1.0) is None  # traffic like the fitting sample: no storm
    stats = plain(normal.stats())
    assert (stats["alerts"], stats["codebook_version"], stats["samples"]) == (0, 1, 100)
    assert stats["distortion_ratio"] == pytest.approx(stats["distortion"] / codec.baseline["distortion"])

    storm = CodebookDriftMonitor(codec)
    alert = storm.observe(np.tile(x[:1], (100, 1)), now=1.0)  # one message said 100 times
    assert alert is not None and "code_usage_shift" in alert["reason"]
    stats = plain(storm.stats())
    assert (stats["alerts"], stats["samples"]) == (1, 100) and stats["psi"] > storm.config.psi_threshold
