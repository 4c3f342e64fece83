"""Priority channels of the Hybrid Communication Protocol (docs/design.md#priority-channels).

Three channels with latency budgets: urgent (50 ms, a dedicated lane), regular (200 ms, shared) and
background (seconds, shared). The `PriorityScheduler` models one outgoing link as two lanes:

- the *urgent lane*, a reserved slice of the link that only urgent messages use, so urgent traffic never
  waits behind a large background transfer;
- the *shared lane*, the rest of the link: urgent first (when the dedicated lane is busy), then regular,
  then background — except that background is guaranteed a minimum share of the shared lane's bytes so
  it is never starved.

Each agent has a token-bucket *quota* per channel; a message beyond the quota is demoted one channel
(urgent → regular → background) and background beyond quota is dropped. Every quota violation lowers the
agent's *reputation*; an agent whose reputation falls below the thresholds has all its messages demoted
until it recovers, so an agent that floods the urgent channel cannot push genuine urgent traffic past
its budget.

Time is simulated (milliseconds, driven by the caller), so a benchmark can replay a flood deterministically.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

CHANNELS = ("urgent", "regular", "background")


@dataclass
class ChannelConfig:
    """Link, budgets, quotas and reputation rules."""

    link_bytes_per_ms: float = 125.0  # 1 Mbit/s
    urgent_share: float = 0.2  # fraction of the link reserved for the urgent lane
    background_min_share: float = 0.1  # share of the shared lane's bytes background is guaranteed
    budget_ms: dict[str, float] = field(
        default_factory=lambda: {"urgent": 50.0, "regular": 200.0, "background": 5000.0}
    )
    queue_limit: dict[str, int] = field(
        default_factory=lambda: {"urgent": 512, "regular": 2048, "background": 4096}
    )
    quota_per_s: dict[str, float] = field(
        default_factory=lambda: {"urgent": 10.0, "regular": 50.0, "background": 200.0}
    )  # messages per second per agent per channel
    quota_burst_s: float = 1.0  # bucket depth in seconds of quota
    enforce_quotas: bool = True
    use_reputation: bool = True
    reputation_penalty: float = 0.05  # multiplicative loss per quota violation
    reputation_recovery_per_s: float = 0.02  # additive recovery towards 1.0
    demote_below: float = 0.6  # reputation below this: every message one channel lower
    background_below: float = 0.3  # reputation below this: everything goes to background


@dataclass
class Message:
    """One message on the link."""

    sender: int
    channel: str  # channel it travels on (after demotion)
    size: int  # bytes on the wire
    created_ms: float
    requested: str = ""  # channel the sender asked for
    started_ms: float = 0.0
    delivered_ms: float = 0.0

    @property
    def latency_ms(self) -> float:
        """Time from submission to the last byte leaving the link."""
        return self.delivered_ms - self.created_ms


class Reputation:
    """Per-agent reputation in [0, 1]: falls with every quota violation, recovers slowly with time."""

    def __init__(self, penalty: float, recovery_per_s: float):
        self.penalty = penalty
        self.recovery_per_s = recovery_per_s
        self._score: dict[int, float] = {}
        self._seen_ms: dict[int, float] = {}

    def score(self, agent: int, now_ms: float) -> float:
        """Current reputation, with recovery applied up to `now_ms`."""
        s = self._score.get(agent, 1.0)
        last = self._seen_ms.get(agent, now_ms)
        s = min(1.0, s + self.recovery_per_s * max(0.0, now_ms - last) / 1000.0)
        self._score[agent], self._seen_ms[agent] = s, now_ms
        return s

    def violate(self, agent: int, now_ms: float) -> None:
        """Record one quota violation."""
        self._score[agent] = self.score(agent, now_ms) * (1.0 - self.penalty)

    def snapshot(self) -> dict[int, float]:
        """Scores as last computed."""
        return dict(self._score)


class _Lane:
    def __init__(self, rate: float):
        self.rate = rate  # bytes per ms
        self.free_at = 0.0
        self.bytes = 0


class PriorityScheduler:
    """Urgent / regular / background channels over one link, with quotas and reputation."""

    def __init__(self, config: ChannelConfig | None = None):
        self.config = c = config or ChannelConfig()
        self.queues: dict[str, deque[Message]] = {ch: deque() for ch in CHANNELS}
        self.urgent_lane = _Lane(c.link_bytes_per_ms * c.urgent_share)
        self.shared_lane = _Lane(c.link_bytes_per_ms * (1.0 - c.urgent_share))
        self.reputation = Reputation(c.reputation_penalty, c.reputation_recovery_per_s)
        self._tokens: dict[tuple[int, str], tuple[float, float]] = {}
        self._shared_bytes = {"regular": 0, "background": 0, "urgent": 0}
        self.delivered: list[Message] = []
        self.counts = {
            "submitted": 0,
            "demoted_quota": 0,
            "demoted_reputation": 0,
            "dropped_quota": 0,
            "dropped_queue_full": 0,
        }

    # ------------------------------------------------------------------------------------ admission
    def _take_token(self, agent: int, channel: str, now_ms: float) -> bool:
        rate = self.config.quota_per_s[channel]
        depth = max(1.0, rate * self.config.quota_burst_s)
        tokens, last = self._tokens.get((agent, channel), (depth, now_ms))
        tokens = min(depth, tokens + rate * (now_ms - last) / 1000.0)
        ok = tokens >= 1.0
        self._tokens[(agent, channel)] = (tokens - 1.0 if ok else tokens, now_ms)
        return ok

    def submit(self, sender: int, channel: str, size: int, now_ms: float) -> Message | None:
        """Queue a message; returns it (with the channel it was admitted to) or None if dropped."""
        if channel not in CHANNELS:
            raise ValueError(f"unknown channel {channel!r}; use one of {CHANNELS}")
        c = self.config
        self.counts["submitted"] += 1
        level = CHANNELS.index(channel)
        if c.use_reputation:
            rep = self.reputation.score(sender, now_ms)
            floor = 2 if rep < c.background_below else 1 if rep < c.demote_below else 0
            if floor and level < 2:
                new = min(2, level + floor)
                if new != level:
                    self.counts["demoted_reputation"] += 1
                    level = new
        if c.enforce_quotas:
            while not self._take_token(sender, CHANNELS[level], now_ms):
                self.reputation.violate(sender, now_ms)
                if level == 2:
                    self.counts["dropped_quota"] += 1
                    return None
                level += 1
                self.counts["demoted_quota"] += 1
        ch = CHANNELS[level]
        if len(self.queues[ch]) >= c.queue_limit[ch]:
            self.counts["dropped_queue_full"] += 1
            return None
        msg = Message(sender, ch, int(size), float(now_ms), requested=channel)
        self.queues[ch].append(msg)
        return msg

    # --------------------------------------------------------------------------------------- service
    def _pick_shared(self) -> Message | None:
        q = self.queues
        if q["urgent"]:
            return q["urgent"].popleft()
        served = self._shared_bytes["regular"] + self._shared_bytes["background"]
        bg_short = q["background"] and (
            self._shared_bytes["background"] < self.config.background_min_share * served or not q["regular"]
        )
        if bg_short:
            return q["background"].popleft()
        if q["regular"]:
            return q["regular"].popleft()
        return None

    def _serve(self, lane: _Lane, msg: Message, now_ms: float) -> None:
        # Messages are queued after `advance(t)` for their creation time t, so every queued message was
        # present when the lane became free: the transmission starts then, or when the message arrived.
        start = max(lane.free_at, msg.created_ms)
        msg.started_ms = start
        msg.delivered_ms = start + msg.size / lane.rate
        lane.free_at = msg.delivered_ms
        lane.bytes += msg.size
        self.delivered.append(msg)

    def advance(self, now_ms: float) -> None:
        """Move the link forward to `now_ms`: start every transmission whose lane is free by then.

        Call it with non-decreasing times, before submitting the messages created at `now_ms`.
        """
        while self.queues["urgent"] and self.urgent_lane.free_at <= now_ms:
            self._serve(self.urgent_lane, self.queues["urgent"].popleft(), now_ms)
        while self.shared_lane.free_at <= now_ms:
            msg = self._pick_shared()
            if msg is None:
                break
            self._shared_bytes[msg.channel] += msg.size
            self._serve(self.shared_lane, msg, now_ms)
            while self.queues["urgent"] and self.urgent_lane.free_at <= now_ms:
                self._serve(self.urgent_lane, self.queues["urgent"].popleft(), now_ms)

    # ----------------------------------------------------------------------------------------- stats
    def latencies(self, channel: str, requested: str | None = None) -> np.ndarray:
        """Latencies (ms) of delivered messages on `channel` (optionally only those asked for `requested`)."""
        return np.array(
            [
                m.latency_ms
                for m in self.delivered
                if m.channel == channel and (requested is None or m.requested == requested)
            ]
        )

    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics: latency percentiles per channel, budget misses, quota/reputation counts."""
        out: dict[str, Any] = dict(self.counts)
        for ch in CHANNELS:
            lat = self.latencies(ch)
            budget = self.config.budget_ms[ch]
            out[ch] = {
                "delivered": int(len(lat)),
                "queued": len(self.queues[ch]),
                "p50_ms": float(np.percentile(lat, 50)) if len(lat) else None,
                "p95_ms": float(np.percentile(lat, 95)) if len(lat) else None,
                "max_ms": float(lat.max()) if len(lat) else None,
                "budget_ms": budget,
                "over_budget": int((lat > budget).sum()) if len(lat) else 0,
            }
        rep = self.reputation.snapshot()
        out["agents_below_demote"] = sum(1 for s in rep.values() if s < self.config.demote_below)
        return out


class FifoLink:
    """Baseline: one first-in-first-out queue over the whole link, no channels, quotas or reputation."""

    def __init__(self, link_bytes_per_ms: float = 125.0, queue_limit: int = 8192):
        self.lane = _Lane(link_bytes_per_ms)
        self.queue: deque[Message] = deque()
        self.queue_limit = queue_limit
        self.delivered: list[Message] = []
        self.dropped = 0

    def submit(self, sender: int, channel: str, size: int, now_ms: float) -> Message | None:
        """Queue a message (dropped when the queue is full)."""
        if len(self.queue) >= self.queue_limit:
            self.dropped += 1
            return None
        msg = Message(sender, channel, int(size), float(now_ms), requested=channel)
        self.queue.append(msg)
        return msg

    def advance(self, now_ms: float) -> None:
        """Transmit queued messages in arrival order up to `now_ms`."""
        while self.queue and self.lane.free_at <= now_ms:
            msg = self.queue.popleft()
            msg.started_ms = max(self.lane.free_at, msg.created_ms)
            msg.delivered_ms = msg.started_ms + msg.size / self.lane.rate
            self.lane.free_at = msg.delivered_ms
            self.delivered.append(msg)

    def latencies(self, channel: str, requested: str | None = None) -> np.ndarray:
        """Latencies (ms) of delivered messages that asked for `channel`."""
        return np.array([m.latency_ms for m in self.delivered if m.requested == channel])

    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics."""
        out: dict[str, Any] = {"dropped_queue_full": self.dropped}
        for ch in CHANNELS:
            lat = self.latencies(ch)
            out[ch] = {
                "delivered": int(len(lat)),
                "p95_ms": float(np.percentile(lat, 95)) if len(lat) else None,
            }
        return out


@dataclass
class FloodScenario:
    """A team sending normal traffic while some agents flood: the priority-channel benchmark."""

    agents: int = 100
    duration_ms: int = 10_000
    urgent_per_s: float = 1.0  # per normal agent
    regular_per_s: float = 2.0
    urgent_bytes: int = 64
    regular_bytes: int = 256
    background_flooders: int = 10  # agents that saturate the link with background transfers
    background_per_s: float = 25.0
    background_bytes: int = 1024
    urgent_abusers: int = 5  # agents that send everything as urgent
    abuse_per_s: float = 400.0
    seed: int = 0


def run_flood(link, scenario: FloodScenario | None = None) -> dict[str, Any]:
    """Replay the flood scenario through `link` (a PriorityScheduler or FifoLink); summarise latencies.

    Genuine urgent latency counts messages that normal agents asked to send as urgent.
    """
    s = scenario or FloodScenario()
    rng = np.random.default_rng(s.seed)
    normal = np.arange(s.background_flooders + s.urgent_abusers, s.agents)
    flooders = np.arange(s.background_flooders)
    abusers = np.arange(s.background_flooders, s.background_flooders + s.urgent_abusers)
    streams = [
        (normal, s.urgent_per_s, "urgent", s.urgent_bytes),
        (normal, s.regular_per_s, "regular", s.regular_bytes),
        (flooders, s.background_per_s, "background", s.background_bytes),
        (abusers, s.abuse_per_s, "urgent", s.urgent_bytes),
    ]
    genuine: list[Message] = []
    offered = 0
    normal_set = set(normal.tolist())
    for t in range(s.duration_ms):
        link.advance(float(t))
        for agents, rate, ch, size in streams:
            n = rng.poisson(rate * len(agents) / 1000.0)
            for a in rng.choice(agents, size=n):
                offered += size
                m = link.submit(int(a), ch, size, float(t))
                if m is not None and ch == "urgent" and int(a) in normal_set:
                    genuine.append(m)
    link.advance(float(s.duration_ms) * 100)  # drain what is queued
    lat = np.array([m.latency_ms for m in genuine if m.delivered_ms > 0])
    link_rate = getattr(link, "config", None)
    capacity = (link_rate.link_bytes_per_ms if link_rate else link.lane.rate) * s.duration_ms
    return {
        "urgent_p50_ms": float(np.percentile(lat, 50)) if len(lat) else None,
        "urgent_p95_ms": float(np.percentile(lat, 95)) if len(lat) else None,
        "urgent_max_ms": float(lat.max()) if len(lat) else None,
        "urgent_delivered": int(len(lat)),
        "offered_load": offered / capacity,  # > 1 means the link is saturated
        "stats": link.stats(),
    }
