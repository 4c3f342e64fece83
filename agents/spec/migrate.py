"""Stored specs of earlier shapes read as today's (`migrate`), so drafts, templates and checkpoints saved
before a move load unchanged. Each step is idempotent: a document already of today's shape passes through."""

from __future__ import annotations

from typing import Any

CUSTOMER_SERVICE_START = {
    "reader": "whole",
    "reader_epochs": 300,
    "warm_start_episodes": 0,
    "warm_start_epochs": 8,
}
"""The customer-service options that sat in ``training`` (and their defaults there) before they became the
environment's parameters (`agents.envs.customer_service.env.CustomerServiceParams`)."""


def migrate(doc: Any) -> Any:
    """``doc`` in today's shape (a new dict where it changed; anything else as given).

    The customer-service start options move from ``training`` to ``environment.params`` (a value already in
    the parameters wins). Under another environment, or none, those at their old default had no effect and
    are dropped; any other value stays in ``training``, where the validator names it an unknown key."""
    if not isinstance(doc, dict) or not isinstance(doc.get("training"), dict):
        return doc
    training = doc["training"]
    moved = {k: training[k] for k in CUSTOMER_SERVICE_START if k in training}
    if not moved:
        return doc
    env = doc.get("environment")
    if isinstance(env, dict) and env.get("name") == "customer_service":
        params = env.get("params", {})
        if not isinstance(params, dict):
            return doc  # the validator reports the parameters' shape; nothing to move them into
        kept = {k: v for k, v in training.items() if k not in moved}
        params = {**params, **{k: v for k, v in moved.items() if k not in params}}
        return {**doc, "training": kept, "environment": {**env, "params": params}}
    kept = {k: v for k, v in training.items() if k not in moved or v != CUSTOMER_SERVICE_START[k]}
    return {**doc, "training": kept}
