"""Communication quotas and reputation against message storms.

An agent in a storm (the fault schedule's ``"agent@task storm"`` or ``"agent@first-last storm"``) floods the
team: each gossip round it pushes ``storm_messages`` unsolicited state messages to random online peers, and each
one delivered costs its receiver ``message_cost`` time units of work (an interruption outside the gossip protocol,
whose own messages the state-sync layer handles).

Every round each agent's messages are counted: the gossip exchanges it sent and its flood. An agent over the
``message_quota`` in a round is detected as storming (a storm is counted when detection starts, a storm round for
every round over the quota); its conduct score halves each such round and recovers a fifth of the way back to 1
in each round it keeps within the quota. The reputation the team sees is the in-time reputation (`env`) × this
score. With ``storm_defence: reputation`` the network accepts at most quota × conduct messages from an agent per
round (the rest are dropped and counted as throttled), and an agent whose conduct is below `TRUST` is discounted:
its bids (or, for the central router, its offer to take the task) rank below every trusted agent's, so it gets a
task only when no trusted agent can take it. With ``none`` every message is delivered and nobody is discounted.

A learned bidder sends one bid per task at most (its action), which the protocol expects of every agent, so bids
never count against the quota: the policy cannot storm through its bids in this environment.
"""

from __future__ import annotations

import numpy as np

TRUST = 0.5  # conduct below which an agent's bids are discounted
FALL, RECOVER = 0.5, 0.2  # conduct × FALL per round over the quota; + RECOVER × (1 − conduct) per quiet round


class StormGuard:
    """Message accounting per agent and round, storm detection and the conduct part of each reputation."""

    def __init__(self, n: int, quota: int, defence: str, storm_messages: int, message_cost: float, seed: int):
        self.n, self.quota, self.defence = n, quota, defence
        self.storm_messages, self.message_cost = storm_messages, message_cost
        self.rng = np.random.default_rng(seed)
        self.conduct = np.ones(n)
        self.storming = np.zeros(n, dtype=bool)  # flooding now (the fault schedule)
        self.flagged = np.zeros(n, dtype=bool)  # over the quota last round
        self.ever = np.zeros(n, dtype=bool)  # detected at least once this episode
        self.lowest = np.ones(n)  # each agent's lowest conduct this episode
        self.storms = self.storm_rounds = self.throttled = self.flood_sent = self.flood_delivered = 0

    def flood(self, online: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """This round's flood: (messages each agent tried to send, messages each agent received)."""
        attempted = np.where(self.storming & online, self.storm_messages, 0)
        allowed = attempted
        if self.defence == "reputation":
            allowed = np.minimum(attempted, np.floor(self.quota * self.conduct)).astype(int)
        received = np.zeros(self.n, dtype=np.int64)
        for i in np.flatnonzero(allowed):
            peers = np.flatnonzero(online)
            peers = peers[peers != i]
            if len(peers):
                received[peers] += self.rng.multinomial(int(allowed[i]), np.full(len(peers), 1 / len(peers)))
        self.flood_sent += int(attempted.sum())
        self.flood_delivered += int(received.sum())
        self.throttled += int((attempted - allowed).sum())
        return attempted, received

    def end_round(self, sent: np.ndarray) -> list[int]:
        """Close a round in which each agent sent ``sent`` messages; returns the agents whose detection
        started or ended (their reputation changed enough to publish)."""
        over = sent > self.quota
        onset = over & ~self.flagged
        self.storms += int(onset.sum())
        self.storm_rounds += int(over.sum())
        changed = np.flatnonzero(onset | (self.flagged & ~over)).tolist()
        self.conduct = np.where(over, self.conduct * FALL, self.conduct + RECOVER * (1.0 - self.conduct))
        self.lowest = np.minimum(self.lowest, self.conduct)
        self.flagged, self.ever = over, self.ever | over
        return changed

    def trusted(self) -> np.ndarray:
        """Who ranks with full weight: everyone without the defence, else agents of conduct ≥ `TRUST`."""
        if self.defence != "reputation":
            return np.ones(self.n, dtype=bool)
        return self.conduct >= TRUST

    def stats(self) -> dict[str, int]:
        return {
            "storms": self.storms,
            "storm_rounds": self.storm_rounds,
            "throttled": self.throttled,
            "flood_sent": self.flood_sent,
            "flood_delivered": self.flood_delivered,
        }
