"""The communication layer: semantic compression, wire format, priority channels, gossip, auctions.

Design: docs/design.md#communication-protocol. Every component exposes `stats()` as a plain dict so a trainer or the runtime
can emit it as a `metrics` event; `CodebookDriftMonitor.observe` returns `alert` payloads (the
"communication storm" warning): ``stream.emit("alert", **alert)``.
"""

from agents.protocol.auction import (
    AuctionConfig,
    AuctionResult,
    EarliestFinish,
    LoadBalancer,
    RoundRobin,
    SealedBidAuction,
    Task,
    Worker,
    simulate_allocation,
)
from agents.protocol.channels import CHANNELS, ChannelConfig, FifoLink, PriorityScheduler, Reputation
from agents.protocol.codebook import IntentClassifier
from agents.protocol.compression import CodecConfig, CodecError, HistoryCompressor, SemanticCodec
from agents.protocol.drift import CodebookDriftMonitor, DriftConfig
from agents.protocol.gossip import GossipConfig, GossipNetwork, central_messages, simulate_workload
from agents.protocol.wire import (
    WIRE_VERSION,
    Frame,
    FrameKind,
    SemanticMessage,
    WireFormatError,
    decode_frame,
    encode_frame,
)

__all__ = [
    "CHANNELS",
    "WIRE_VERSION",
    "AuctionConfig",
    "AuctionResult",
    "ChannelConfig",
    "CodebookDriftMonitor",
    "CodecConfig",
    "CodecError",
    "DriftConfig",
    "EarliestFinish",
    "FifoLink",
    "Frame",
    "FrameKind",
    "GossipConfig",
    "GossipNetwork",
    "HistoryCompressor",
    "IntentClassifier",
    "LoadBalancer",
    "PriorityScheduler",
    "Reputation",
    "RoundRobin",
    "SealedBidAuction",
    "SemanticCodec",
    "SemanticMessage",
    "Task",
    "Worker",
    "WireFormatError",
    "central_messages",
    "decode_frame",
    "encode_frame",
    "simulate_allocation",
    "simulate_workload",
]
