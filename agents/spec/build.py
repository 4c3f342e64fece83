"""Loading: a JSON file or document -> a validated `TeamSpec` with every default filled in."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.errors import SpecError, SpecValidationError
from agents.spec.algorithms import DEFAULT_ALGORITHM
from agents.spec.declared import rules
from agents.spec.frozen import FrozenDict, _freeze
from agents.spec.migrate import migrate
from agents.spec.nodes import (
    AgentSpec,
    BackboneSpec,
    CircuitBreakerSpec,
    CommunicationSpec,
    CurriculumSpec,
    EdgeSpec,
    EnvironmentSpec,
    EvolutionSpec,
    FallbackRuleSpec,
    FallbackSpec,
    LoraSpec,
    PhaseSpec,
    PlateauSpec,
    PolicyHeadSpec,
    ResourcesSpec,
    RewardSpec,
    RewardTermSpec,
    TeamSpec,
    _default_phases,
    _default_terms,
    preset_terms,
    training_section,
)
from agents.spec.options import LIMITS, SPEC_VERSION
from agents.spec.prompts import default_prompt
from agents.spec.validator import validate_spec

__all__ = ["load_spec"]


def _build(doc: dict) -> TeamSpec:
    """A validated document -> TeamSpec with defaults filled in."""

    def simple(cls: type, key: str, src: dict | None = None) -> Any:
        data = (doc if src is None else src).get(key, {})
        kwargs = {}
        for r in rules(cls):
            if r.name in data:
                value = data[r.name]
                if r.kind == "number" and isinstance(value, int) and not isinstance(value, bool):
                    value = float(value)  # a JSON 1 in a number option loads as 1.0
                kwargs[r.name] = value
        return cls(**kwargs)

    agents = []
    for a in doc["agents"]:
        mods = a.get("lora", {}).get("target_modules")
        agents.append(
            AgentSpec(
                id=a["id"],
                role=a["role"],
                prompt=a["prompt"] if "prompt" in a else default_prompt(a, doc.get("environment")),
                lora=replace(
                    simple(LoraSpec, "lora", a), target_modules=None if mods is None else tuple(mods)
                ),
                policy_head=simple(PolicyHeadSpec, "policy_head", a),
                update_period=a.get("update_period", 1),
                intents=tuple(a.get("intents", ())),
                clue=a.get("clue"),
            )
        )
    edges = tuple(
        EdgeSpec(e["source"], e["target"], e.get("kind", "communication")) for e in doc.get("edges", [])
    )

    reward_doc = doc.get("reward", {})
    preset = reward_doc.get("preset")
    explicit = [
        RewardTermSpec(t["term"], FrozenDict({k: float(w) for k, w in t["weights"].items()}))
        for t in reward_doc.get("terms", [])
    ]
    if preset is not None:
        merged = {t.term: t for t in preset_terms(preset)}
        for t in explicit:
            merged[t.term] = t
        terms = tuple(merged.values())
    elif "terms" in reward_doc:
        terms = tuple(explicit)
    else:
        terms = _default_terms()

    evo = doc.get("evolution", {})
    phases = (
        tuple(PhaseSpec(ph["name"], float(ph["threshold"])) for ph in evo["phases"])
        if "phases" in evo
        else _default_phases()
    )
    fb = doc.get("fallback", {})
    env = doc.get("environment", {})
    return TeamSpec(
        spec_version=doc.get("spec_version", SPEC_VERSION),
        name=doc["name"],
        description=doc.get("description", ""),
        backbone=simple(BackboneSpec, "backbone"),
        agents=tuple(agents),
        edges=edges,
        communication=simple(CommunicationSpec, "communication"),
        reward=RewardSpec(preset=preset, terms=terms),
        evolution=EvolutionSpec(
            phases=phases,
            plateau=simple(PlateauSpec, "plateau", evo),
            cycle_episodes=evo.get("cycle_episodes", EvolutionSpec.cycle_episodes),
        ),
        curriculum=simple(CurriculumSpec, "curriculum"),
        circuit_breaker=simple(CircuitBreakerSpec, "circuit_breaker"),
        fallback=FallbackSpec(
            kind=fb.get("kind", "none"),
            rules=tuple(FallbackRuleSpec(tuple(r["keywords"]), r["route_to"]) for r in fb.get("rules", [])),
        ),
        environment=EnvironmentSpec(name=env.get("name"), params=_freeze(env.get("params", {}))),
        training=simple(_training_section(doc), "training"),
        resources=simple(ResourcesSpec, "resources"),
    )


def _training_section(doc: dict) -> type:
    """The class of the document's training section, chosen by its algorithm."""
    training = doc.get("training", {})
    return training_section(training.get("algorithm", DEFAULT_ALGORITHM))


def _read_document(source: str | Path) -> Any:
    path = Path(source)
    limit = LIMITS["document_bytes"]
    try:
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)
    except OSError as exc:
        raise SpecValidationError(
            [SpecError("$", f"cannot read spec file {str(path)!r}: {exc.strerror or exc}")]
        ) from None
    if len(raw) > limit:
        raise SpecValidationError([SpecError("$", f"spec file {str(path)!r} is larger than {limit:,} bytes")])
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise SpecValidationError([SpecError("$", f"spec file {str(path)!r} is not UTF-8 text")]) from None
    except json.JSONDecodeError as exc:
        raise SpecValidationError(
            [
                SpecError(
                    "$",
                    f"spec file {str(path)!r} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
                )
            ]
        ) from None
    except RecursionError:
        raise SpecValidationError([SpecError("$", f"spec file {str(path)!r} is nested too deeply")]) from None


def load_spec(source: str | Path | Mapping | TeamSpec, *, require_environment: bool = False) -> TeamSpec:
    """A validated TeamSpec from a JSON file path, a parsed document, or a TeamSpec.

    Raises SpecValidationError (a ValueError) listing every error. With `require_environment=True`
    a design-only spec (environment name null) is refused, as a trainer must.
    """
    if isinstance(source, TeamSpec):
        source = source.to_dict()
    doc = _read_document(source) if isinstance(source, (str, Path)) else source
    if isinstance(doc, Mapping) and not isinstance(doc, dict):
        doc = dict(doc)
    doc = migrate(doc)  # a stored spec of an earlier shape builds as today's
    errors = validate_spec(doc, require_environment=require_environment)
    if errors:
        raise SpecValidationError(errors)
    return _build(doc)
