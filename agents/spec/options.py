"""The spec's constants: its version, the enumerations each option chooses from, and the size caps.

Each option's choices are defined here once; the validator checks against them and the catalogue
serves them to the designer. The training algorithms and their capabilities live in
`agents.spec.algorithms`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agents.envs.number_guess_digits import CLUE_KINDS
from agents.spec.frozen import _freeze

__all__ = [
    "SPEC_VERSION",
    "PHASES",
    "LIMITS",
    "ID_PATTERN",
    "POOLINGS",
    "EDGE_KINDS",
    "PROTOCOLS",
    "CLUE_KINDS",
    "FALLBACK_KINDS",
    "BASELINES",
    "SHARINGS",
    "TEACHERS",
    "RECEPTIONS",
    "READINGS",
    "DEVICE_PATTERN",
    "REWARD_PRESETS",
    "PRESETS",
    "SWEET_SPOT_AGENTS",
]

SPEC_VERSION = 1

PHASES = ("exploration", "exploitation", "transfer")
"""Evolution phases (docs/design.md#evolution), in the order the scheduler walks them."""

# Reward presets (docs/design.md#reward-presets)

REWARD_PRESETS: Mapping[str, Mapping[str, Mapping[str, float]]] = _freeze(
    {
        # exploration = 0.7·entropy_bonus + 0.3·task; exploitation = 0.9·task − 0.1·coherence_penalty;
        # transfer = 0.5·transfer_score + 0.5·domain_performance.
        "phase_rewards": {
            "task": {"exploration": 0.3, "exploitation": 0.9, "transfer": 0.0},
            "entropy_bonus": {"exploration": 0.7, "exploitation": 0.0, "transfer": 0.0},
            "coherence_penalty": {"exploration": 0.0, "exploitation": -0.1, "transfer": 0.0},
            "transfer_score": {"exploration": 0.0, "exploitation": 0.0, "transfer": 0.5},
            "domain_performance": {"exploration": 0.0, "exploitation": 0.0, "transfer": 0.5},
        },
        # Against runaway agents: task − 0.3·coherence_penalty + 0.2·collaboration_bonus, in every phase.
        "hierarchical": {
            "task": dict.fromkeys(PHASES, 1.0),
            "coherence_penalty": dict.fromkeys(PHASES, -0.3),
            "collaboration_bonus": dict.fromkeys(PHASES, 0.2),
        },
    }
)
"""preset -> term -> phase -> weight (reward = Σ weight · term)."""

# Caps against hostile or runaway documents. 2–5 agents is the sweet spot (docs/design.md#complexity-advisor); 64 is a hard cap.
LIMITS = {
    "document_bytes": 1_000_000,
    "depth": 24,
    "values": 100_000,
    "agents": 64,
    "edges": 1_000,
    "prompt_chars": 8_000,
    "name_chars": 200,
    "description_chars": 5_000,
    "reward_terms": 64,
    "fallback_rules": 200,
    "keywords": 100,
    "keyword_chars": 200,
    "target_modules": 32,
    "path_chars": 1_000,
    "processes": 64,  # resources.processes / resources.devices
    "errors": 200,  # reported errors; beyond this a hostile document only gets a count
}

ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
POOLINGS = ("mean", "cls", "last")
EDGE_KINDS = ("communication", "dependency")
PROTOCOLS = ("dense", "hcp")  # null = dense; "hcp" = compression (docs/design.md#semantic-compression)
FALLBACK_KINDS = ("none", "keyword_router", "scripted")
BASELINES = ("moving_average", "value")
SHARINGS = ("lora", "independent", "shared")  # training.policy_sharing (docs/design.md#policy-sharing)
TEACHERS = (
    "none",
    "rules",
    "expert",
    "checkpoint",
)  # training.teacher: teacher–student augmentation's teacher
RECEPTIONS = ("weighted", "gated")  # training.reception: how a receiver hears its delivered messages
READINGS = ("shared", "per_agent")  # training.reading: one first layer for every agent's text, or one each
DEVICE_PATTERN = re.compile(r"^(cpu|auto|mps|cuda(:[0-9]{1,2})?)$")
PRESETS = tuple(REWARD_PRESETS)

SWEET_SPOT_AGENTS = (2, 5)  # docs/design.md#complexity-advisor
