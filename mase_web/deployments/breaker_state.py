"""A deployment's circuit breaker as its row holds it: restored from the row, and shown as a snapshot.

Reading only: writing the row back and publishing what changed is `breaker_store`'s. Serializers read
the snapshot from here, so the events `breaker_store` publishes can be serialized without a cycle.
"""

from __future__ import annotations

from typing import Any

from mase_web.deployments.models import Deployment
from serving.breaker import BreakerConfig, CircuitBreaker


def breaker_config(deployment: Deployment) -> BreakerConfig:
    return BreakerConfig.from_spec(deployment.spec.get("circuit_breaker") or {})


def restored_breaker(deployment: Deployment, breaker: CircuitBreaker | None = None) -> CircuitBreaker:
    """``breaker`` (or a new one with the spec's thresholds) set to the row's state, with no history."""
    if breaker is None:
        breaker = CircuitBreaker(breaker_config(deployment), name=deployment.name)
    breaker.restore(deployment.breaker or {})
    breaker.transitions.clear()  # the rows are the history; in memory we only collect what happens now
    breaker.alerts.clear()
    return breaker


def snapshot(deployment: Deployment) -> dict[str, Any]:
    """The breaker as a dashboard shows it (state, hold, streak, cool-down left, counters, thresholds)."""
    return restored_breaker(deployment).snapshot()
