"""A deployment's circuit breaker as its row holds it: restored from the row, and shown as a snapshot.

Reading only: writing the row back and publishing what changed is `breaker_store`'s. Serializers read
the snapshot from here, so the events `breaker_store` publishes can be serialized without a cycle.
"""

from __future__ import annotations

from typing import Any

from agents.envs import UnknownEnvironmentError, breaker_step_limit, env_class
from mase_web.deployments.models import Deployment
from serving.breaker import BreakerConfig, CircuitBreaker


def breaker_config(deployment: Deployment) -> BreakerConfig:
    """The spec's thresholds, with the step limit the runtime enforces: unset, it is derived from the
    environment's longest episode (as `serving.runtime` derives it), not the limit for an unmeasured one."""
    breaker = deployment.spec.get("circuit_breaker") or {}
    config = BreakerConfig.from_spec(breaker)
    environment = deployment.spec.get("environment") or {}
    try:
        cls = env_class(str(environment.get("name")))
    except UnknownEnvironmentError:  # unknown or unavailable here: the runtime cannot run it either
        return config
    config.step_limit = breaker_step_limit(cls, environment.get("params") or {}, breaker.get("step_limit"))
    return config


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
