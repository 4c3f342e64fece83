"""Stored specs of earlier shapes read as today's (`migrate`), so drafts, templates and checkpoints saved
before a move load unchanged. Each step is idempotent: a document already of today's shape passes through."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from agents.spec.algorithms import ALGORITHMS, DEFAULT_ALGORITHM, options_model, readers

CUSTOMER_SERVICE_START = {
    "reader": "whole",
    "reader_epochs": 300,
    "warm_start_episodes": 0,
    "warm_start_epochs": 8,
}
"""The customer-service options that sat in ``training`` (and their defaults there) before they became the
environment's parameters (`agents.envs.customer_service.env.CustomerServiceParams`)."""


def migrate(doc: Any) -> Any:
    """``doc`` in today's shape (a new dict where it changed; anything else as given): each step below."""
    return _without_unread_defaults(_customer_service_start(doc))


def _customer_service_start(doc: Any) -> Any:
    """The customer-service start options move from ``training`` to ``environment.params`` (a value already in
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


def _without_unread_defaults(doc: Any) -> Any:
    """The training section of before the union on ``algorithm`` held every algorithm's options (a saved
    draft wrote them all out): those the document's algorithm does not read are dropped where they are at
    their default, which they changed nothing at. Any other value stays, for the validator to judge
    (`agents.spec.training_section`)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("training"), dict):
        return doc
    training = doc["training"]
    algorithm = training.get("algorithm", DEFAULT_ALGORITHM)
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        return doc
    kept = {k: v for k, v in training.items() if not _unread_default(algorithm, k, v)}
    return doc if len(kept) == len(training) else {**doc, "training": kept}


def _unread_default(algorithm: str, key: str, value: Any) -> bool:
    found = readers(key)
    if not found or algorithm in found:
        return False
    default = next(f.default for f in fields(options_model(found[0])) if f.name == key)
    return value == default and isinstance(value, bool) == isinstance(default, bool)
