"""The team spec: the versioned JSON document a product manager designs and a trainer runs.

One validator serves the CLI and the web API alike:

    errors = validate_spec(doc)          # every error with its JSON path; never raises
    spec = load_spec("team.json")        # a TeamSpec, or SpecValidationError (a ValueError)
    warnings = spec_warnings(doc)        # advice that does not block (e.g. more than 5 agents)

`TeamSpec` is a tree of frozen dataclasses whose attribute names equal the JSON keys, with every
default filled in; `spec.to_dict()` round-trips through `load_spec`. The dataclasses below are the
schema, explained in docs/design.md#team-spec; the notes below record the finer rules.

- Reward: `reward = Σ weight[phase] · term` over the terms; a weight missing for a phase is 0. Weight
  keys must be phase names declared in `evolution.phases`. A `preset` supplies terms; explicit terms
  with the same name override the preset's weights, other explicit terms are added.
- Evolution phases are named from `PHASES`, each at most once, in the order the scheduler walks them;
  thresholds lie in [0, 1] (a mean agent score) and never decrease from one phase to the next.
- Edges: `dependency` edges (workflow steps) must form a DAG; `communication` edges list the allowed
  links. A spec with no communication edges lets every agent attend to every other (docs/design.md#communication-attention).
- Environment: `name` null means a design-only template (it validates, but cannot be trained; pass
  `require_environment=True` to make that an error). A registered environment checks its own
  `params` through `validate_params` and, when it has fixed agent names, `expected_agents(params)`
  (the spec's agent ids must then equal them). An enabled curriculum needs an environment with
  `difficulty_levels`, and `max_level` below that count.
- Training (MAPPO/IPPO): how a customer-service team reads a ticket and starts (`reader`,
  `warm_start_episodes`…) are that environment's parameters; a stored spec that has them in `training`
  reads as if they were there (`agents.spec.migrate`). `self_imitation` > 0 (MAPPO/IPPO only) keeps
  every training step in the dual replay and imitates the replayed steps whose return beat the critic
  (`training.self_imitation`). `policy_sharing` picks the actor networks (docs/design.md#policy-sharing; "lora": one trunk
  with a LoRA adapter per agent, the default; "independent"; "shared" with a role embedding);
  `counterfactual` (MAPPO only) takes the COMA-style baseline; `teacher` "rules" (the environment's
  rule-scripted team), "expert" (customer_service: that team reading the training labels) or "checkpoint"
  (a trained team: `teacher_checkpoint` names its checkpoint or run directory, checked to exist) turns the
  steps where the teacher disagrees into cloning samples weighted by `teacher_coef`, faded linearly to 0
  over the first `teacher_fade_episodes` (0 = never; set only with a teacher). Non-default values of these
  under another algorithm are errors at their own path.
- Training (reinforce_comm), for clues phrased in ways never seen in training: `reception` "gated" hears
  every delivered message at full weight ("weighted", the default, scales it by its attention weight);
  `reading` "per_agent" gives every agent its own first layer over its text embedding ("shared", the
  default, reads every agent's text with one layer);
  `embedding_noise` adds Gaussian noise of that std to the input embeddings in training updates;
  `paraphrase_consistency` weighs a loss pulling what a clue agent says towards what it would say from
  the same clue in another training phrasing (needs an environment with `paraphrase_ids`, e.g.
  number_guess); `token_attention` true lets every agent pool the backbone's token states of its text
  with its own learned query (starting from mean pooling; not with `train_adapters`). All five default
  to off; docs/decisions/0005-token-attention-for-unseen-phrasings.md has the figures.
- Hostile input: documents over 1 MB (serialised), nested deeper than 24 levels or holding more than
  100,000 values are refused before any other check; lists and strings have caps (`LIMITS`).

- Options of `training`, `resources`, `circuit_breaker`, `curriculum` and `evolution` are declared once, on
  their fields in `nodes` (pydantic metadata: type, default, range, choices, description); the validator's
  plain checks and the JSON Schema are read from there (docs/decisions/0011-one-place-per-spec-option.md).
  `training.entropy_coef` null (the default) means the algorithm's own weight (MAPPO/IPPO 0.01,
  reinforce_comm 0.0); a written value, 0 included, is used as given.

The package, one responsibility a module: `options` (version, enumerations, caps, reward presets),
`algorithms` (the training algorithms and their capabilities), `nodes` (the TeamSpec tree), `declared`
(what each field declares), `frozen` (read-only JSON values), `checks` / `team_checks` / `run_checks` /
`validator` (validation), `build` (loading), `advice` (warnings), `catalog` (the designer's menus) and
`schema` (the declared sections' JSON Schema).
"""

from __future__ import annotations

from agents.errors import SpecError, SpecValidationError
from agents.roles import REWARD_TERMS, ROLES, RewardTermInfo, RoleInfo
from agents.spec.advice import spec_warnings
from agents.spec.algorithms import ALGORITHM_TABLE, ALGORITHMS, AlgorithmInfo
from agents.spec.budget import with_episodes
from agents.spec.build import _read_document as _read_document  # training.cli reads spec files with it
from agents.spec.build import load_spec
from agents.spec.catalog import intent_catalogues, prompt_routing, spec_catalog
from agents.spec.checks import json_type_name
from agents.spec.frozen import FrozenDict
from agents.spec.nodes import (
    TRAINING_SECTIONS,
    AgentSpec,
    BackboneSpec,
    CircuitBreakerSpec,
    CommonTraining,
    CommunicationSpec,
    CurriculumSpec,
    EdgeSpec,
    EnvironmentSpec,
    EvolutionSpec,
    FallbackRuleSpec,
    FallbackSpec,
    IppoTraining,
    LoraSpec,
    MappoTraining,
    PhaseSpec,
    PlateauSpec,
    PolicyHeadSpec,
    ReinforceCommTraining,
    ResourcesSpec,
    RewardSpec,
    RewardTermSpec,
    TeamSpec,
    TrainingSpec,
    preset_terms,
    training_section,
)
from agents.spec.options import (
    BASELINES,
    DEVICE_PATTERN,
    EDGE_KINDS,
    FALLBACK_KINDS,
    ID_PATTERN,
    LIMITS,
    PHASES,
    POOLINGS,
    PRESETS,
    PROTOCOLS,
    READINGS,
    RECEPTIONS,
    REWARD_PRESETS,
    SHARINGS,
    SPEC_VERSION,
    SWEET_SPOT_AGENTS,
    TEACHERS,
)
from agents.spec.validator import validate_spec

__all__ = [
    "SPEC_VERSION",
    "ROLES",
    "REWARD_TERMS",
    "REWARD_PRESETS",
    "PHASES",
    "LIMITS",
    "RoleInfo",
    "RewardTermInfo",
    "SpecError",
    "SpecValidationError",
    "FrozenDict",
    "BackboneSpec",
    "LoraSpec",
    "PolicyHeadSpec",
    "AgentSpec",
    "EdgeSpec",
    "CommunicationSpec",
    "RewardTermSpec",
    "RewardSpec",
    "PhaseSpec",
    "PlateauSpec",
    "EvolutionSpec",
    "CurriculumSpec",
    "CircuitBreakerSpec",
    "FallbackRuleSpec",
    "FallbackSpec",
    "EnvironmentSpec",
    "TrainingSpec",
    "TRAINING_SECTIONS",
    "CommonTraining",
    "ReinforceCommTraining",
    "MappoTraining",
    "IppoTraining",
    "training_section",
    "with_episodes",
    "TeamSpec",
    "validate_spec",
    "load_spec",
    "spec_warnings",
    "preset_terms",
    "spec_catalog",
    "intent_catalogues",
    "prompt_routing",
    # module-level names the single-module agents.spec also offered (imported across the repository)
    "ALGORITHMS",
    "ALGORITHM_TABLE",
    "AlgorithmInfo",
    "BASELINES",
    "DEVICE_PATTERN",
    "EDGE_KINDS",
    "FALLBACK_KINDS",
    "ID_PATTERN",
    "POOLINGS",
    "PRESETS",
    "PROTOCOLS",
    "READINGS",
    "RECEPTIONS",
    "ResourcesSpec",
    "SHARINGS",
    "SWEET_SPOT_AGENTS",
    "TEACHERS",
    "json_type_name",
]
