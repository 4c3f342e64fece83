"""Every communication component reports `stats()` as a plain, JSON-serialisable dict (for `metrics` events)."""

import json

import numpy as np

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


def test_stats_are_plain_json_dicts():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 16))
    labels = [f"i{v}" for v in rng.integers(4, size=200)]
    codec = SemanticCodec(CodecConfig(n_codes=8, residual_dims=2, residual_bits=2)).fit(x, labels)
    codes, levels = codec.encode(x[:10])
    history = HistoryCompressor(codec)
    history.to_frame(codes, levels)
    monitor = CodebookDriftMonitor(codec)
    monitor.observe(x[:100], now=1.0)
    sched = PriorityScheduler()
    sched.submit(1, "urgent", 64, 0.0)
    sched.advance(10.0)
    fifo = FifoLink()
    fifo.submit(1, "regular", 64, 0.0)
    fifo.advance(10.0)
    net = GossipNetwork(5)
    net.update(0)
    net.run_until_converged(20)
    workers = [Worker(0, {"x": 1.0}), Worker(1, {"x": 1.0})]
    auction = SealedBidAuction()
    auction.assign(Task(0, "x", 1.0), workers, 0.0)
    components = [
        codec,
        history,
        monitor,
        sched,
        fifo,
        net,
        auction,
        RoundRobin(),
        EarliestFinish(),
        LoadBalancer(),
    ]
    for component in components:
        stats = component.stats()
        assert isinstance(stats, dict) and stats, type(component).__name__
        assert json.loads(json.dumps(stats)) == stats, type(component).__name__
