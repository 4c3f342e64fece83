"""Shared team state — when each agent is next free, whether it is online, its reputation, the codebook version —
kept either by push–pull gossip (`agents.protocol.gossip`) or by a central controller, with every message counted.

Each agent owns its entry and publishes a new version when it changes (it took a task, went offline, its
reputation moved; the codebook owner publishes a new codebook). What agent i believes about agent k is the value
of the version of k's entry that i holds: with gossip, possibly stale; with the controller, always current. An
agent that goes offline publishes its last entry (offline) and falls silent; with gossip the first peer whose message
to it is lost takes that entry and spreads it (`TeamGossip._exchange`), so the others learn who is gone.

Messages: gossip counts the exchanges of `GossipNetwork` (digest, reply, entries); the controller counts 2N per
change (the update and its ack, then the broadcast to the N−1 others and their acks), as the library's
`central_messages` does. Both are counted for the same changes, so a run reports its own ratio. The design's
communication quota (messages an agent may handle per round) is the network's storm threshold: above it an
agent gossips with one peer only, and each such agent-round is counted as a quota hit.
"""

from __future__ import annotations

import math

import numpy as np

from agents.protocol.gossip import GossipConfig, GossipNetwork

FIELDS = ("free_at", "online", "reputation", "codebook")


class TeamGossip(GossipNetwork):
    """The library's gossip network, plus agents that go offline: they stop initiating, messages to them are
    lost, and they no longer hold back convergence (nobody can reach them)."""

    def __init__(self, n_agents: int, config: GossipConfig):
        super().__init__(n_agents, config)
        self.offline = np.zeros(n_agents, dtype=bool)
        self.sent = np.zeros(n_agents, dtype=np.int64)  # messages each agent sent, for its quota (`storms`)

    def _send(self, src: int, dst: int) -> bool:
        self.sent[src] += 1
        return super()._send(src, dst)

    def _exchange(self, a: int, b: int, learned: np.ndarray) -> bool | None:
        """The library's exchange, with a failure detector: an online agent whose message to an offline peer is
        lost takes the peer's last entry (published as it went offline, which says so) and spreads that news
        like any change it learned, so the team comes to know who is gone without a controller."""
        result = super()._exchange(a, b, learned)
        if result is None and self.offline[b] and not self.offline[a] and self.view[a, b] < self.view[b, b]:
            self.view[a, b] = self.view[b, b]
            learned[a] += 1
            return True
        return result

    def take_offline(self, agent: int) -> None:
        self.offline[agent] = True
        self.group[agent] = -1 - agent  # a partition of its own: unreachable

    def step(self) -> int:
        self.hot_until[self.offline] = -1
        self.heard[self.offline] = self.round + 1  # no back-off pulls from a dead agent
        sent = super().step()
        if self.offline.any():  # an unreachable agent is not waited for
            self.view[self.offline] = self.view.max(axis=0)
            self._track()
        return sent


class TeamState:
    """The team's shared state under ``mode`` ("gossip" | "central"); `believed()` is each agent's view."""

    def __init__(self, n_agents: int, mode: str, quota: int, seed: int, history: int):
        self.n, self.mode, self.seed = n_agents, mode, seed
        self.values = np.zeros((n_agents, history, len(FIELDS)))  # values[k, version] = k's published entry
        self.values[:, 0, 1] = 1.0  # online
        self.values[:, 0, 2] = 1.0  # reputation starts full
        self.version = np.zeros(n_agents, dtype=np.int64)
        self.changes_per_round: list[int] = [0]
        self.central_messages = 0
        big = n_agents > 50
        config = GossipConfig(seed=seed, storm_load=quota, anti_entropy_period=30 if big else 0)
        self.net = TeamGossip(n_agents, config)

    def publish(self, agent: int, free_at: float, online: bool, reputation: float, codebook: int) -> None:
        """Agent ``agent`` changed its entry: a new version, spread by gossip or sent to the controller."""
        v = int(self.version[agent]) + 1
        if v >= self.values.shape[1]:  # grow the history
            self.values = np.concatenate([self.values, np.zeros_like(self.values)], axis=1)
        self.values[agent, v] = (free_at, float(online), reputation, codebook)
        self.version[agent] = v
        self.net.update(agent)
        self.changes_per_round[-1] += 1
        self.central_messages += 2 * self.n

    def round(self) -> None:
        """One gossip round (the controller needs none: its broadcast arrives within the round)."""
        if self.mode == "gossip":
            self.net.step()
        self.changes_per_round.append(0)

    def take_offline(self, agent: int) -> None:
        self.net.take_offline(agent)

    def believed(self) -> np.ndarray:
        """[N viewers, N owners, FIELDS]: what each agent believes of every entry."""
        if self.mode == "central":
            current = self.values[np.arange(self.n), self.version]
            return np.broadcast_to(current, (self.n, self.n, len(FIELDS)))
        held = np.minimum(self.net.view, self.version[None, :])
        return self.values[np.arange(self.n)[None, :], held]

    def messages(self) -> int:
        """Messages this run's mode sent."""
        return int(self.net.messages) if self.mode == "gossip" else int(self.central_messages)

    def stats(self) -> dict[str, float | int | None]:
        g = self.net.stats()
        return {
            "state_sync": self.mode,
            "messages": self.messages(),
            "gossip_messages": int(self.net.messages),
            "central_messages": int(self.central_messages),
            "changes": int(self.version.sum()),
            "gossip_rounds": int(self.net.round),
            "rounds_p95": g["rounds_p95"] if self.mode == "gossip" else 1.0,
            "rounds_bound": 2 * math.log2(self.n),
            "quota_hits": int(g["storm_fallbacks"]),
            "anti_entropy_runs": int(g["anti_entropy_runs"]),
            "lost_messages": int(g["lost_messages"]),
        }
