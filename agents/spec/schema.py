"""The JSON Schema of the spec's declared sections, from their dataclasses' pydantic metadata.

    python -m agents.spec.schema > frontend/src/designer/spec.schema.json

The workflows catalogue serves it to the designer; the designer's TypeScript types are generated from
the committed copy (`npm run gen:types` in frontend/), and a test checks that copy is current.
"""

from __future__ import annotations

import copy
import functools
import json
import sys
from typing import Any

from pydantic import TypeAdapter

from agents.spec.algorithms import DEFAULT_ALGORITHM
from agents.spec.nodes import (
    TRAINING_SECTIONS,
    AgentSpec,
    BackboneSpec,
    CircuitBreakerSpec,
    CommunicationSpec,
    CurriculumSpec,
    EdgeSpec,
    EvolutionSpec,
    FallbackSpec,
    ResourcesSpec,
    TrainingSpec,
)
from agents.spec.options import LIMITS

__all__ = ["SECTIONS", "spec_schema", "schema_text"]

SECTIONS: dict[str, Any] = {
    "backbone": BackboneSpec,
    "communication": CommunicationSpec,
    "training": TrainingSpec,
    "resources": ResourcesSpec,
    "circuit_breaker": CircuitBreakerSpec,
    "curriculum": CurriculumSpec,
    "evolution": EvolutionSpec,
    "fallback": FallbackSpec,
}
"""The spec's sections whose options are each declared once, on their dataclass field ("training": a union
of one dataclass per algorithm, chosen by `algorithm`, which the schema says with `oneOf`). The agents' and
the edges' options are declared so too (AgentSpec, LoraSpec, PolicyHeadSpec, EdgeSpec): the schema's
"agents" and "edges" list them."""

_REF = "#/$defs/{model}"


def spec_schema() -> dict[str, Any]:
    """One JSON Schema (draft 2020-12) with a property per section of SECTIONS, each a `$defs` entry
    named after its dataclass, and "agents" and "edges". Every section is optional and takes no other keys, as the
    validator says."""
    return copy.deepcopy(_built())  # the caller's own copy of a schema built once per process


@functools.cache
def _built() -> dict[str, Any]:
    defs: dict[str, Any] = {}
    for name, cls in (*_named(SECTIONS.values()), ("AgentSpec", AgentSpec), ("EdgeSpec", EdgeSpec)):
        schema = TypeAdapter(cls).json_schema(ref_template=_REF)
        defs.update(schema.pop("$defs", {}))
        defs[name] = schema
    for d in defs.values():
        if d.get("type") == "object":
            d["additionalProperties"] = False  # the validator refuses unknown keys
        for prop in d.get("properties", {}).values():
            prop.pop("title", None)  # "Entropy Coef" says nothing the key does not, and would name a TS type
    # the union's branches: each algorithm's section; an absent section is the default algorithm's
    defs["TrainingSpec"]["description"] = "the trainer's settings: the common options and the algorithm's own"
    defs["TrainingSpec"]["default"] = {"algorithm": DEFAULT_ALGORITHM}
    for algorithm, section in TRAINING_SECTIONS.items():  # so a section without `algorithm` is one branch
        if algorithm != DEFAULT_ALGORITHM:
            defs[section.__name__]["required"] = ["algorithm"]
    # a document may leave out an agent's prompt (the loader fills in its role's), which no field default says
    defs["AgentSpec"]["required"] = ["id", "role"]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "SpecSections",
        "description": "The team spec's declared sections (agents.spec.schema); each is optional.",
        "type": "object",
        "properties": {
            "agents": {
                "description": "the team's agents",
                "type": "array",
                "items": {"$ref": _REF.format(model="AgentSpec")},
                "minItems": 1,
                "maxItems": LIMITS["agents"],
            },
            "edges": {
                "description": "links between agents: communication allowed, or a workflow dependency",
                "type": "array",
                "items": {"$ref": _REF.format(model="EdgeSpec")},
                "maxItems": LIMITS["edges"],
            },
            **{
                key: {"$ref": _REF.format(model=name)}
                for key, (name, _) in zip(SECTIONS, _named(SECTIONS.values()), strict=True)
            },
        },
        "additionalProperties": False,
        "$defs": dict(sorted(defs.items())),
    }


def _named(sections: Any) -> list[tuple[str, Any]]:
    """(the `$defs` name, the type) of each section: a dataclass by its name, the training union as
    "TrainingSpec"."""
    return [(cls.__name__ if isinstance(cls, type) else "TrainingSpec", cls) for cls in sections]


def schema_text() -> str:
    """The schema as the committed frontend/src/designer/spec.schema.json holds it."""
    return json.dumps(spec_schema(), indent=2, ensure_ascii=False) + "\n"


def main() -> int:
    sys.stdout.write(schema_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
