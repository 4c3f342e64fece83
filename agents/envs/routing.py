"""What training, serving and the web ask of a *routing* environment — one whose team answers a ticket by
its intents (customer service, or any catalogue a spec declares) — without importing it.

A routing environment's class names its interface in ``routing`` ("package.module", imported by name on
first use, as the registry imports the class), a module with

- ``start(params)``: how a trained team reads and starts (`StartOptions` fields: ``reader``,
  ``reader_epochs``, ``warm_start_episodes``, ``warm_start_epochs``, optionally ``reader_whole``, ``actor_evidence``) and
  ``clause_readers``;
- ``reader_inputs(params, keywords)``: the intents' description texts (anchors a prompt is compared to)
  and, with ``keywords``, a function of one clause giving the keyword rules' verdict per intent;
- ``expert_team(tickets, roster)``: the labelled rule team (warm-start logs, the expert teacher);
- ``correct_actions(names, observation, truth, owned, catalogue)``: the right actions of one agent (calibration);
- ``keyword_fallback(rules, params, team)`` and ``rules_router(params)``: the rule fallback and its router;
- ``make_ticket(id, text, intents)``, ``load_tickets(name, params)``, ``ticket_problem(row, params)``;
- ``reply(intent, ticket)``: the template reply sentence to one intent (None: not one of its own);
- ``dev_tickets(params)``, ``test_tickets(params)``: the held-out splits of the tickets trained on (None: none).

An instance of the environment holds its ``catalogue`` (``names``, ``actions``, ``action_intents``).
`ROUTING_ENVIRONMENTS` lists the registered ones (a new routing domain adds its name there).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agents.envs import UnknownEnvironmentError, env_class

ROUTING_ENVIRONMENTS: tuple[str, ...] = ("customer_service",)
"""The registered environments with a routing interface; the first is the default for a ticket that
names no environment (a ticket file, the template writer)."""


@dataclass(frozen=True)
class StartOptions:
    """How a trained team reads tickets and starts; these defaults for an environment without labels."""

    reader: str = "whole"
    reader_epochs: int = 300
    warm_start_episodes: int = 0
    warm_start_epochs: int = 8
    clause_reader: bool = False  # per-clause readers fitted on the tickets' intents
    reader_outputs: int = 8  # a clause reader's scores per clause: one per intent of the catalogue
    reader_whole: bool = False  # clause readers also read the whole ticket's sentence vector
    actor_evidence: str = "reader"  # "reader_plain…": readers averaged with a plain classifier (evidence)

    @property
    def plain_evidence(self) -> bool:
        """The clause readers' scores are averaged with a plain classifier's on the whole ticket's vector."""
        return self.clause_reader and self.actor_evidence != "reader"

    @property
    def whole_vector(self) -> bool:
        """A clause block starts with the whole ticket's sentence vector (its head's or the plain's input)."""
        return self.reader_whole or self.plain_evidence


def routing(name: str | None = None) -> Any | None:
    """The routing interface of environment ``name`` (default: the first routing environment); None for an
    environment without one, or none of that name."""
    name = ROUTING_ENVIRONMENTS[0] if name is None else name
    try:
        return _interface(env_class(name))
    except UnknownEnvironmentError:
        return None


def _interface(cls: type) -> Any | None:
    """The interface module a class names in ``routing`` (None: not a routing environment)."""
    target = getattr(cls, "routing", None)
    return importlib.import_module(target) if isinstance(target, str) else None


def start_options(environment: Any) -> StartOptions:
    """How a team trained in a spec's ``environment`` (its ``name`` and ``params``) reads and starts: its
    routing environment's answer, else the defaults (one embedding per text, no warm start)."""
    interface = routing(environment.name) if environment.name else None
    if interface is None:
        return StartOptions()
    start = interface.start(dict(environment.params))
    return StartOptions(
        reader=start.reader,
        reader_epochs=start.reader_epochs,
        warm_start_episodes=start.warm_start_episodes,
        warm_start_epochs=start.warm_start_epochs,
        clause_reader=start.reader in interface.clause_readers,
        reader_outputs=len(interface.catalogue(dict(environment.params)).names),
        reader_whole=bool(getattr(start, "reader_whole", False)),
        actor_evidence=str(getattr(start, "actor_evidence", "reader")),
    )


def environment_interface(env: Any) -> Any | None:
    """The routing interface of an environment instance (its class's ``routing``), None without one."""
    return _interface(type(getattr(env, "unwrapped", env)))


def intent_reply(intent: str, ticket: str) -> str | None:
    """The template reply to ``intent`` from the routing environment that knows it (None: none does)."""
    for name in ROUTING_ENVIRONMENTS:
        interface = routing(name)
        sentence = interface.reply(intent, ticket) if interface is not None else None
        if sentence is not None:
            return sentence
    return None


def rows_intents(params: Mapping[str, Any] | None = None, name: str | None = None) -> tuple[str, ...]:
    """The intent names of environment ``name``'s catalogue under ``params`` (default: the shipped one)."""
    interface = routing(name)
    return () if interface is None else tuple(interface.catalogue(params or {}).names)
