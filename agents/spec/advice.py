"""`spec_warnings`: advice on a spec that does not block saving or training."""

from __future__ import annotations

import logging
from typing import Any

from agents.envs import UnknownEnvironmentError, env_class
from agents.errors import SpecError
from agents.roles import deciding_agents
from agents.spec.algorithms import DEFAULT_ALGORITHM, is_ppo, readers
from agents.spec.build import _build
from agents.spec.migrate import migrate
from agents.spec.nodes import TeamSpec
from agents.spec.options import SWEET_SPOT_AGENTS
from agents.spec.prompts import prompt_warnings
from agents.spec.training_section import unread_kind
from agents.spec.validator import validate_spec

__all__ = ["spec_warnings"]

log = logging.getLogger(__name__)


def _shares_state_itself(spec: TeamSpec) -> bool:
    """Whether the environment carries its own state-sharing protocol (``shares_state = True`` on its class,
    e.g. the large team's gossip): then learned messages being off hides nothing from the agents."""
    if spec.environment.name is None:
        return False
    try:
        return bool(getattr(env_class(spec.environment.name), "shares_state", False))
    except UnknownEnvironmentError:
        return False


def spec_warnings(doc: Any) -> list[SpecError]:
    """Advice on a spec that does not block saving or training (e.g. more than 5 agents).

    Accepts a document or a TeamSpec; for an invalid document only the checks that make sense on
    its raw form are run (never raises).
    """
    try:
        return _warnings(doc)
    except Exception:  # advice must never break the designer
        log.exception("spec_warnings failed")
        return []


def _warnings(doc: Any) -> list[SpecError]:
    out: list[SpecError] = []
    if isinstance(doc, TeamSpec):
        spec: TeamSpec | None = doc
        n_agents = len(doc.agents)
        roles: list[object] = [a.role for a in doc.agents]
    else:
        raw = doc.get("agents") if isinstance(doc, dict) else None
        n_agents = len(raw) if isinstance(raw, list) else 0
        roles = [a.get("role") if isinstance(a, dict) else None for a in raw] if isinstance(raw, list) else []
        spec = None
        if not validate_spec(doc):
            spec = _build(migrate(doc))
    lo, hi = SWEET_SPOT_AGENTS
    deciding = deciding_agents(roles)  # informants and distractors only share what they hold
    if deciding > hi:
        out.append(
            SpecError(
                "$.agents",
                f"{deciding} agents make decisions: teams of {lo}–{hi} usually balance specialisation against "
                "coordination cost best (see docs/design.md#complexity-advisor); merge roles unless the task is "
                "very large and modular",
            )
        )
    elif n_agents == 1:
        out.append(
            SpecError(
                "$.agents",
                "a single agent has nobody to coordinate with; MARL adds nothing over a well-prompted agent",
            )
        )
    raw = doc.to_dict() if isinstance(doc, TeamSpec) else doc
    out.extend(SpecError(path, message) for path, message in prompt_warnings(raw))
    if spec is None:
        return out
    if spec.environment.name is None:
        out.append(
            SpecError(
                "$.environment.name", "design-only spec: it cannot be trained until an environment is chosen"
            )
        )
    if spec.communication.enabled and len(spec.agents) > 1:
        linked = {e.source for e in spec.edges} | {e.target for e in spec.edges}
        if spec.edges:
            for i, a in enumerate(spec.agents):
                if a.id not in linked:
                    out.append(
                        SpecError(
                            f"$.agents[{i}]", f"agent {a.id!r} has no edges: it is isolated from the team"
                        )
                    )
    if not spec.communication.enabled and len(spec.agents) > 1 and not _shares_state_itself(spec):
        out.append(
            SpecError(
                "$.communication.enabled", "communication is off: the agents cannot share what they know"
            )
        )
    phases = [ph.name for ph in spec.evolution.phases]
    for ph in phases:
        if not any(t.weight(ph) != 0.0 for t in spec.reward.terms):
            out.append(
                SpecError(
                    "$.reward.terms", f"every reward weight is 0 in phase {ph!r}: nothing to learn there"
                )
            )
        elif all(
            t.weight(ph) == 0.0
            for t in spec.reward.terms
            if t.term in ("task", "transfer_score", "domain_performance", "human_feedback")
        ):
            out.append(
                SpecError(
                    "$.reward.terms",
                    f"phase {ph!r} has no task-related reward term; agents may learn to game the shaping terms",
                )
            )
    if spec.fallback.kind == "none":
        out.append(
            SpecError(
                "$.fallback.kind",
                "no rule fallback: when the circuit breaker trips there is nothing safe to switch to",
            )
        )
    if spec.fallback.kind == "none" and spec.fallback.rules:
        out.append(SpecError("$.fallback.rules", 'rules are ignored while fallback kind is "none"'))
    out.extend(_unread_options(doc))
    widths = [a.policy_head.hidden for a in spec.agents]
    if is_ppo(spec.training.algorithm) and len(set(widths)) > 1:
        for i, width in enumerate(widths):
            if width < max(widths):
                out.append(
                    SpecError(
                        f"$.agents[{i}].policy_head.hidden",
                        f"the {spec.training.algorithm.upper()} trainer gives every agent's policy head "
                        f"the team's widest size, so this agent's {width} hidden units become {max(widths)}",
                    )
                )
    for i, a in enumerate(spec.agents):
        if a.lora.r > 64:
            out.append(
                SpecError(
                    f"$.agents[{i}].lora.r",
                    f"LoRA rank {a.lora.r} is large for a per-agent adapter; 4–16 is typical",
                )
            )
    return out


def _unread_options(doc: Any) -> list[SpecError]:
    """An option another algorithm reads, set away from its default under one that does not, when its
    options model says so (`UNREAD` "warning", agents.spec.algorithm_options), is a warning: the run
    trains, but the user should know it changes nothing. Only a document can hold one: the loaded
    spec's training section has the chosen algorithm's options alone."""
    training = migrate(doc).get("training") if isinstance(doc, dict) else None
    if not isinstance(training, dict):
        return []
    algorithm = training.get("algorithm", DEFAULT_ALGORITHM)
    return [
        SpecError(
            f"$.training.{key}",
            f"{algorithm} does not read this option (only {', '.join(readers(key))} does): "
            "it changes nothing in this run",
        )
        for key in training
        if isinstance(algorithm, str) and unread_kind(algorithm, key) == "warning"
    ]
