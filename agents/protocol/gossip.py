"""Decentralised state sync by push–pull gossip with anti-entropy (docs/design.md#gossip).

Every agent keeps a view of every agent's state as a version number per key (key = the agent that owns
the state; only the owner changes it). Time advances in rounds.

Push–pull exchange (initiator A, peer B), counted message by message:
1. A → B: digest (A's version vector).
2. B → A: the entries B has newer, plus the list of keys where A is newer. Always sent (it is the ack).
3. A → B: those entries, only if B asked for any.

Who initiates: an agent is *hot* for `hot_rounds` after it learned or made something new, and gossips
with `fanout` random peers each round while hot; it loses interest early after `stop_after` exchanges in
a row that taught nobody anything (rumour-mongering termination, which makes quiet periods cheap). A
cold agent pulls from one random peer when it has heard nothing for 1, 2, 4, 8, … rounds (exponential
back-off up to `max_backoff`): an agent the rumour missed is exactly one nobody contacted lately, so it
catches up at once, while a quiet team pays only a trickle of heartbeats (at most one pull per agent
every `max_backoff` rounds once it has been silent that long).

Adaptive fan-out, from each agent's own view of the load (messages it sent or received last round): a
quiet agent (fewer than `quiet_load`) gossips with `max_fanout` peers, so a lone update still spreads in
O(log N) rounds; a busy one uses the base `fanout`, because many concurrent updates already share each
exchange; above `storm_load` (a communication storm) it drops to one peer and the storm is counted.

Anti-entropy: every `anti_entropy_period` rounds each agent, hot or not, does a full exchange with one
random peer; this repairs what rumours missed, e.g. a group that was partitioned. The design enables it
above 50 agents (every 5 minutes); with 10-second rounds that is every 30 rounds.

Central baseline (`central_messages`): a controller receives each update (1 message) and acknowledges it
(1), then broadcasts it to the N−1 other agents (N−1) who each acknowledge (N−1): 2N messages per state
change, converging in 1 round. A batched variant (the controller broadcasts once per round whatever
changed) is reported too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class GossipConfig:
    """Gossip, adaptive fan-out and anti-entropy settings."""

    fanout: int = 1  # base number of peers per round while hot
    max_fanout: int = 2  # adaptive fan-out ceiling
    adaptive: bool = True
    quiet_load: int = 2  # messages/round below which an agent uses max_fanout
    storm_load: int = 16  # messages/round above which an agent falls back to one peer
    hot_rounds: int = 5  # rounds an agent keeps spreading after learning something new
    stop_after: int = 1  # consecutive useless exchanges that end the spreading early
    max_backoff: int = 32  # longest silence (rounds) before a cold agent pulls; 0 disables back-off pulls
    idle_pull_prob: float = 0.0  # extra chance a cold agent pulls each round
    anti_entropy_period: int = 30  # rounds; the design's 5 minutes at 10 s per round
    anti_entropy_min_agents: int = 50  # anti-entropy only when the team is larger than this
    seed: int = 0


class GossipNetwork:
    """N agents syncing versioned state by push–pull gossip; tracks messages and convergence."""

    def __init__(self, n_agents: int, config: GossipConfig | None = None):
        if n_agents < 2:
            raise ValueError(f"gossip needs at least 2 agents, got {n_agents}")
        self.n = n_agents
        self.config = c = config or GossipConfig()
        self.rng = np.random.default_rng(c.seed)
        self.view = np.zeros((n_agents, n_agents), dtype=np.int64)  # view[a, k]: version of k's state a has
        self.round = 0
        self.hot_until = np.full(n_agents, -1)
        self.useless = np.zeros(n_agents, dtype=np.int64)
        self.fresh = np.zeros(n_agents, dtype=np.int64)  # entries learned last round
        self.group = np.zeros(n_agents, dtype=np.int64)  # partition id; agents only reach their own group
        self.pending: list[tuple[int, int, int]] = []  # (key, version, round made) not yet everywhere
        self.convergence_rounds: list[int] = []
        self.changes = 0
        self.messages = 0
        self.entries_sent = 0
        self.anti_entropy_runs = 0
        self.lost = 0  # messages to an unreachable peer
        self.last_round_messages = 0
        self.node_messages = np.zeros(n_agents, dtype=np.int64)
        self.load = np.zeros(n_agents, dtype=np.int64)  # messages each agent handled last round
        self.storm_rounds = 0  # agent-rounds spent in the storm fallback
        self.heard = np.zeros(n_agents, dtype=np.int64)  # last round each agent sent or received a message

    # ------------------------------------------------------------------------------------------ events
    def update(self, agent: int) -> int:
        """`agent` changes its own state; returns the new version."""
        self.view[agent, agent] += 1
        self.changes += 1
        self.pending.append((agent, int(self.view[agent, agent]), self.round))
        self._heat(agent)
        return int(self.view[agent, agent])

    def partition(self, groups: list[list[int]]) -> None:
        """Split the team: agents reach only agents of their own group until `heal()`."""
        for gid, members in enumerate(groups):
            self.group[np.asarray(members, dtype=np.int64)] = gid + 1

    def heal(self) -> None:
        """Remove every partition."""
        self.group[:] = 0

    # ------------------------------------------------------------------------------------------ rounds
    def _heat(self, agent: int) -> None:
        self.hot_until[agent] = self.round + self.config.hot_rounds
        self.useless[agent] = 0

    def _fanout(self, agent: int) -> int:
        c = self.config
        if not c.adaptive:
            return c.fanout
        if self.load[agent] > c.storm_load:
            self.storm_rounds += 1
            return 1
        return c.max_fanout if self.load[agent] < c.quiet_load else c.fanout

    def _backoff_due(self, agent: int) -> bool:
        c = self.config
        if c.max_backoff <= 0:
            return False
        silent = self.round - self.heard[agent]
        if silent <= 0:
            return False
        return silent % c.max_backoff == 0 if silent > c.max_backoff else (silent & (silent - 1)) == 0

    def _send(self, src: int, dst: int) -> bool:
        self.messages += 1
        self.node_messages[src] += 1
        self.node_messages[dst] += 1
        if self.group[src] != self.group[dst]:
            self.lost += 1
            return False
        return True

    def _exchange(self, a: int, b: int, learned: np.ndarray) -> bool | None:
        """One push–pull exchange; returns whether anybody learned something (None: peer unreachable)."""
        if not self._send(a, b):  # digest lost: no reply, so no feedback either way
            return None
        b_newer = self.view[b] > self.view[a]
        a_newer = self.view[a] > self.view[b]
        self._send(b, a)  # entries B has newer + request for the rest (also the ack)
        self.entries_sent += int(b_newer.sum())
        if a_newer.any():
            self._send(a, b)
            self.entries_sent += int(a_newer.sum())
        if b_newer.any():
            learned[a] += int(b_newer.sum())
        if a_newer.any():
            learned[b] += int(a_newer.sum())
        merged = np.maximum(self.view[a], self.view[b])
        self.view[a] = merged
        self.view[b] = merged
        return bool(a_newer.any() or b_newer.any())

    def _peers(self, agent: int, k: int) -> np.ndarray:
        others = self.rng.choice(self.n - 1, size=min(k, self.n - 1), replace=False)
        return np.where(others >= agent, others + 1, others)

    def step(self) -> int:
        """Run one round; returns the messages it sent."""
        c = self.config
        before = self.messages
        handled = self.node_messages.copy()
        learned = np.zeros(self.n, dtype=np.int64)
        order = self.rng.permutation(self.n)
        anti_entropy = (
            self.n > c.anti_entropy_min_agents
            and c.anti_entropy_period > 0
            and self.round > 0
            and self.round % c.anti_entropy_period == 0
        )
        if anti_entropy:
            self.anti_entropy_runs += 1
        for a in order:
            hot = self.round <= self.hot_until[a] and self.useless[a] < c.stop_after
            if anti_entropy:
                k = 1
            elif hot:
                k = self._fanout(a)
            elif self._backoff_due(a) or self.rng.random() < c.idle_pull_prob:
                k = 1
            else:
                continue
            for b in self._peers(a, k):
                useful = self._exchange(a, int(b), learned)
                if useful is not None:
                    self.useless[a] = 0 if useful else self.useless[a] + 1
        for agent in np.flatnonzero(learned):
            self._heat(agent)
        self.fresh = learned
        self.round += 1
        self.last_round_messages = self.messages - before
        self.load = self.node_messages - handled
        self.heard[self.load > 0] = self.round
        self._track()
        return self.last_round_messages

    def _track(self) -> None:
        still = []
        for key, version, made in self.pending:
            if (self.view[:, key] >= version).all():
                self.convergence_rounds.append(self.round - made)
            else:
                still.append((key, version, made))
        self.pending = still

    def converged(self) -> bool:
        """Whether every agent holds the newest version of every agent's state."""
        return bool((self.view == self.view.max(axis=0, keepdims=True)).all())

    def run_until_converged(self, max_rounds: int = 1000) -> int:
        """Step until converged (or `max_rounds`); returns the rounds it took."""
        start = self.round
        while not self.converged() and self.round - start < max_rounds:
            self.step()
        return self.round - start

    def stats(self) -> dict[str, Any]:
        """Plain-dict statistics: messages, per-change convergence, anti-entropy, load per node."""
        conv = np.asarray(self.convergence_rounds)
        rounds = max(1, self.round)
        return {
            "agents": self.n,
            "round": self.round,
            "changes": self.changes,
            "messages": self.messages,
            "messages_per_change": self.messages / max(1, self.changes),
            "entries_sent": self.entries_sent,
            "lost_messages": self.lost,
            "anti_entropy_runs": self.anti_entropy_runs,
            "storm_fallbacks": self.storm_rounds,
            "pending_changes": len(self.pending),
            "converged": self.converged(),
            "converged_share": float((self.view == self.view.max(axis=0, keepdims=True)).all(axis=1).mean()),
            "rounds_median": float(np.median(conv)) if len(conv) else None,
            "rounds_p95": float(np.percentile(conv, 95)) if len(conv) else None,
            "rounds_max": int(conv.max()) if len(conv) else None,
            "max_node_messages_per_round": float(self.node_messages.max() / rounds),
        }


def central_messages(n_agents: int, changes_per_round: list[int], acks: bool = True) -> dict[str, float]:
    """Messages a central controller needs for the same updates (see module docstring for what counts)."""
    per_change = (2 * n_agents) if acks else n_agents
    total = per_change * sum(changes_per_round)
    batched = sum((2 if acks else 1) * (c + n_agents - 1) for c in changes_per_round if c)
    rounds = max(1, len(changes_per_round))
    # The controller itself sends or receives every one of these messages.
    return {
        "messages": float(total),
        "messages_per_change": float(per_change),
        "batched_messages": float(batched),
        "controller_messages_per_round": total / rounds,
        "rounds": 1.0,
    }


def simulate_workload(
    n_agents: int,
    update_prob: float = 0.2,
    active_rounds: int = 30,
    config: GossipConfig | None = None,
    max_rounds: int = 500,
) -> dict[str, Any]:
    """Each round every agent changes its state with `update_prob` for `active_rounds`, then the team
    goes quiet until converged. Compares gossip with the central controller on the same changes."""
    cfg = config or GossipConfig()
    net = GossipNetwork(n_agents, cfg)
    rng = np.random.default_rng(cfg.seed + 1)
    per_round = []
    for _ in range(active_rounds):
        movers = np.flatnonzero(rng.random(n_agents) < update_prob)
        for a in movers:
            net.update(int(a))
        per_round.append(len(movers))
        net.step()
    net.run_until_converged(max_rounds)
    g = net.stats()
    central = central_messages(n_agents, per_round)
    return {
        "gossip": g,
        "central": central,
        "message_ratio": g["messages"] / max(1.0, central["messages"]),
        "message_ratio_vs_batched": g["messages"] / max(1.0, central["batched_messages"]),
        "rounds": g["rounds_p95"],
        "rounds_bound": 2 * math.log2(n_agents),
    }
