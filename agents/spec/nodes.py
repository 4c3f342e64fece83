"""The spec tree: frozen dataclasses whose attribute names equal the JSON keys (docs/design.md#team-spec)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from agents.roles import ROLES
from agents.spec.algorithm_options import PpoOptions, ReinforceCommOptions
from agents.spec.algorithms import ALGORITHMS, DEFAULT_ALGORITHM
from agents.spec.frozen import FrozenDict, _to_json
from agents.spec.options import (
    CLUE_KINDS,
    DEVICE_PATTERN,
    EDGE_KINDS,
    FALLBACK_KINDS,
    ID_PATTERN,
    LIMITS,
    PHASES,
    POOLINGS,
    PROTOCOLS,
    REWARD_PRESETS,
    SPEC_VERSION,
)

_ROLE_NAMES = tuple(ROLES)  # an agent's role chooses one of these


class _SpecNode:
    """Every part of the spec tree can turn itself back into plain JSON."""

    def to_dict(self) -> dict[str, Any]:
        """This part of the spec as plain JSON values (dict / list / str / number / bool / None)."""
        return _to_json(self)


def _int(lo: int, hi: int, description: str) -> Any:
    """An integer option in [lo, hi]."""
    return Field(ge=lo, le=hi, description=description)


_ALGORITHM_WORDS = "the trainer (agents.spec.algorithms lists what each can do)"


@dataclass(frozen=True)
class BackboneSpec(_SpecNode):
    """The frozen transformer shared by all agents."""

    model: Annotated[
        str,
        Field(
            min_length=1,
            max_length=LIMITS["path_chars"],
            description='"default" (all-MiniLM-L6-v2) or a local Hugging Face model directory',
        ),
    ] = "default"
    pooling: Annotated[
        Literal[POOLINGS],
        Field(description='how token states become one vector: "mean", "cls" or "last" (causal LM)'),
    ] = "mean"
    max_length: Annotated[int, _int(8, 8192, "tokens the backbone reads of one text")] = 64


@dataclass(frozen=True)
class LoraSpec(_SpecNode):
    """An agent's LoRA adapter ("skill DNA")."""

    r: Annotated[int, _int(1, 256, "the adapter's rank")] = 4
    alpha: Annotated[float, Field(gt=0, le=4096, description="the adapter's scale (alpha / r)")] = 8.0
    dropout: Annotated[float, Field(ge=0, lt=1, description="dropout on the adapter's input")] = 0.0
    # checked by hand (team_checks): each a module name without spaces
    target_modules: Annotated[
        tuple[str, ...] | None,
        Field(
            description="modules the adapter wraps; null = the architecture's attention key/value projections"
        ),
    ] = None


@dataclass(frozen=True)
class PolicyHeadSpec(_SpecNode):
    """An agent's own policy head on top of the shared backbone."""

    hidden: Annotated[int, _int(1, 4096, "width of the head's hidden layer")] = 64


@dataclass(frozen=True)
class AgentSpec(_SpecNode):
    """One agent of the team. A document may leave out `prompt`: the loader fills it in (`agents.spec.prompts`)."""

    id: Annotated[
        str,
        Field(
            min_length=1,
            max_length=40,
            pattern=ID_PATTERN.pattern,
            description="the agent's id, unique in the team",
            json_schema_extra={"pattern_hint": "use [a-z][a-z0-9_]{0,39}"},
        ),
    ]
    role: Annotated[Literal[_ROLE_NAMES], Field(description="the agent's role (agents.roles)")]
    prompt: Annotated[
        str,
        Field(
            min_length=1,
            max_length=LIMITS["prompt_chars"],
            description="what the agent is told; left out = the role's default prompt, or one the environment "
            "derives (customer service under intents of its own: those the agent owns, in words); "
            "custom roles need one",
        ),
    ]
    lora: Annotated[LoraSpec, Field(description="the agent's LoRA adapter")] = field(default_factory=LoraSpec)
    policy_head: Annotated[PolicyHeadSpec, Field(description="the agent's own policy head")] = field(
        default_factory=PolicyHeadSpec
    )
    update_period: Annotated[
        int, _int(1, 100_000, "parameters update every k training updates (agents evolve at their own speed)")
    ] = 1
    # checked by hand (team_checks, and the environment's catalogue)
    intents: Annotated[
        tuple[str, ...], Field(description="what it answers, from its environment's intent catalogue")
    ] = ()
    clue: Annotated[
        Literal[CLUE_KINDS] | None,
        Field(
            description='number guessing informants: "bit" or "range", the kind of digit its clue states; '
            "null = the environment's clue_kinds"
        ),
    ] = None


@dataclass(frozen=True)
class EdgeSpec(_SpecNode):
    """A link between two agents: a workflow dependency or an allowed communication link."""

    source: Annotated[str, Field(min_length=1, max_length=40, description="the agent it starts from")]
    target: Annotated[str, Field(min_length=1, max_length=40, description="the agent it leads to")]
    kind: Annotated[
        Literal[EDGE_KINDS],
        Field(description='"communication" (target may hear source) or "dependency" (a workflow step)'),
    ] = "communication"


@dataclass(frozen=True)
class CommunicationSpec(_SpecNode):
    """Learned attention communication (docs/design.md#communication-attention) and its reward shaping."""

    enabled: Annotated[bool, Field(description="agents send each other learned messages")] = True
    d_k: Annotated[int, _int(1, 1024, "width of the attention's keys and queries")] = 32
    delivery_threshold: Annotated[
        float,
        Field(ge=0, le=1, description="a message weighing less is not delivered (its weight becomes 0)"),
    ] = 0.05
    message_cost: Annotated[
        float, Field(ge=0, le=10, description="subtracted from the reward per delivered message")
    ] = 0.01
    explore_share: Annotated[
        float, Field(ge=0, le=1, description="share of training episodes routed with noisy attention")
    ] = 0.5
    beta_start: Annotated[
        float, Field(ge=0, le=100, description="routing noise β at the start of training")
    ] = 1.0
    beta_end: Annotated[
        float, Field(ge=0, le=100, description="routing noise β at the end; at most beta_start")
    ] = 0.05
    beta_decay_episodes: Annotated[
        int, _int(1, 10**9, "episodes over which β decays geometrically to beta_end")
    ] = 2000
    novelty_bonus: Annotated[
        float,
        Field(
            ge=0,
            le=10,
            description="bonus for hearing what a receiver did not already have (in successful episodes)",
        ),
    ] = 0.0
    consensus_bonus: Annotated[
        float,
        Field(ge=0, le=10, description="bonus for the receivers' messages agreeing (mean pairwise cosine)"),
    ] = 0.0
    protocol: Annotated[
        Literal[PROTOCOLS] | None,
        Field(
            description='null or "dense" = plain messages; "hcp" = compressed (docs/design.md#semantic-compression)'
        ),
    ] = None


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

    name: Annotated[Literal[PHASES], Field(description="the phase, from the scheduler's fixed order")]
    threshold: Annotated[float, Field(ge=0, le=1, description="mean agent score that ends the phase")]


@dataclass(frozen=True)
class PlateauSpec(_SpecNode):
    """Plateau rule (docs/design.md#plateau-rule): `cycles` evolution cycles without > `min_improvement` gain -> flag the reward."""

    cycles: Annotated[
        int, Field(ge=1, le=1000, description="evolution cycles without gain before the flag")
    ] = 3
    min_improvement: Annotated[
        float, Field(ge=0, le=1, description="the least gain in mean score that counts as progress")
    ] = 0.02


def _default_phases() -> tuple[PhaseSpec, ...]:
    return (PhaseSpec("exploration", 0.3), PhaseSpec("exploitation", 0.9), PhaseSpec("transfer", 1.0))


@dataclass(frozen=True)
class EvolutionSpec(_SpecNode):
    """Evolution schedule: phases, plateau rule, episodes per evolution cycle."""

    phases: Annotated[
        tuple[PhaseSpec, ...], Field(description="the phases in order; thresholds never decrease")
    ] = field(default_factory=_default_phases)
    plateau: Annotated[PlateauSpec, Field(description="when a stalled team flags its reward")] = field(
        default_factory=PlateauSpec
    )
    cycle_episodes: Annotated[int, Field(ge=1, le=10**8, description="episodes per evolution cycle")] = 500


@dataclass(frozen=True)
class CurriculumSpec(_SpecNode):
    """Adaptive curriculum: raise the level above `upper` success, lower it below `lower`."""

    enabled: Annotated[bool, Field(description="move the difficulty level with the success rate")] = False
    upper: Annotated[float, Field(ge=0, le=1, description="success rate above which the level rises")] = 0.8
    lower: Annotated[
        float, Field(ge=0, le=1, description="success rate below which the level falls; below upper")
    ] = 0.4
    min_level: Annotated[int, Field(ge=0, le=1000, description="the easiest level it may reach")] = 0
    max_level: Annotated[
        int, Field(ge=0, le=1000, description="the hardest level; within the environment's levels")
    ] = 3


@dataclass(frozen=True)
class CircuitBreakerSpec(_SpecNode):
    """Circuit breaker (docs/design.md#circuit-breaker): switch to the rule fallback after consecutive low-confidence tickets."""

    confidence_threshold: Annotated[
        float, Field(ge=0, le=1, description="a decision below this confidence counts as low")
    ] = 0.5
    consecutive_low: Annotated[
        int, Field(ge=1, le=10_000, description="tickets in a row with a low decision that trip the breaker")
    ] = 3
    cooldown_s: Annotated[
        float, Field(ge=0, le=86_400, description="seconds on the fallback before the team is tried again")
    ] = 30.0
    step_limit: Annotated[
        int | None,
        Field(
            ge=1,
            le=1_000_000,
            # unset: `agents.envs.breaker_step_limit` derives it
            description="steps of one episode before the breaker trips; unset: the environment's longest "
            "episode plus a margin",
        ),
    ] = None


@dataclass(frozen=True)
class FallbackRuleSpec(_SpecNode):
    """A keyword rule of the fallback router: any keyword present -> route to `route_to`."""

    # checked by hand (team_checks): each a non-empty string
    keywords: Annotated[tuple[str, ...], Field(description="any of these in the text routes it")]
    route_to: Annotated[str, Field(min_length=1, max_length=40, description="the agent it routes to")]


@dataclass(frozen=True)
class FallbackSpec(_SpecNode):
    """What the circuit breaker switches to."""

    kind: Annotated[
        Literal[FALLBACK_KINDS],
        Field(
            description='"none", "keyword_router" (the rules below) or "scripted" (the environment\'s rule team)'
        ),
    ] = "none"
    rules: Annotated[
        tuple[FallbackRuleSpec, ...],
        Field(description="a keyword_router's rules (a text goes to each rule it matches)"),
    ] = ()


@dataclass(frozen=True)
class EnvironmentSpec(_SpecNode):
    """The environment the team trains in; `name` None = design-only template."""

    name: str | None = None
    params: FrozenDict = field(default_factory=FrozenDict)


@dataclass(frozen=True)
class CommonTraining(_SpecNode):
    """The training options every algorithm reads. Each is declared once
    (docs/decisions/0011-one-place-per-spec-option.md); the validator, the loader and the designer's JSON
    Schema read it from its field."""

    __pydantic_config__ = ConfigDict(strict=True, extra="forbid")  # the validator's rules: no coercion

    algorithm: Annotated[Literal[ALGORITHMS], Field(description=_ALGORITHM_WORDS)] = DEFAULT_ALGORITHM
    episodes: Annotated[int, _int(1, 10**9, "training episodes in all")] = 3000
    batch_size: Annotated[int, _int(1, 65_536, "episodes per update (per process)")] = 32
    lr: Annotated[float, Field(gt=0, le=1, description="learning rate")] = 0.003
    seed: Annotated[int, _int(0, 2**32 - 1, "random seed of the run")] = 0
    device: Annotated[
        str,
        Field(
            min_length=1,
            max_length=20,
            pattern=DEVICE_PATTERN.pattern,
            description='where it trains: "cpu", "auto", "mps", "cuda" or "cuda:N"',
            json_schema_extra={"pattern_hint": 'use "cpu", "auto", "mps", "cuda" or "cuda:N"'},
        ),
    ] = "cpu"
    entropy_coef: Annotated[
        float | None,
        Field(
            ge=0,
            le=10,
            description="weight of the policy-entropy bonus; null = the algorithm's own default "
            "(mappo/ippo 0.01, reinforce_comm 0.0)",
        ),
    ] = None
    grad_clip: Annotated[float, Field(gt=0, le=1e6, description="gradient-norm clip")] = 1.0
    eval_every: Annotated[int, _int(0, 10**9, "episodes between evaluations; 0 = never")] = 500
    eval_episodes: Annotated[int, _int(1, 10**7, "episodes of one evaluation")] = 200
    checkpoint_every: Annotated[int, _int(0, 10**9, "episodes between checkpoints; 0 = never")] = 500


# One training section per algorithm: the common options plus the options model the capability table names
# for it (agents.spec.algorithm_options), `algorithm` fixed to its name. The section is a union on
# `algorithm`, so a MAPPO section has no reinforce_comm option at all (docs/decisions/0016).


@dataclass(frozen=True)
class ReinforceCommTraining(ReinforceCommOptions, CommonTraining):
    """reinforce_comm's training section."""

    algorithm: Annotated[Literal["reinforce_comm"], Field(description=_ALGORITHM_WORDS)] = "reinforce_comm"


@dataclass(frozen=True)
class MappoTraining(PpoOptions, CommonTraining):
    """mappo's training section."""

    algorithm: Annotated[Literal["mappo"], Field(description=_ALGORITHM_WORDS)] = "mappo"


@dataclass(frozen=True)
class IppoTraining(PpoOptions, CommonTraining):
    """ippo's training section."""

    algorithm: Annotated[Literal["ippo"], Field(description=_ALGORITHM_WORDS)] = "ippo"


TRAINING_SECTIONS: dict[str, type] = {
    cls.__dataclass_fields__["algorithm"].default: cls
    for cls in (ReinforceCommTraining, MappoTraining, IppoTraining)
}
"""Algorithm name -> its training section (a test checks it matches the capability table)."""

TrainingSpec = Annotated[
    ReinforceCommTraining | MappoTraining | IppoTraining, Field(discriminator="algorithm")
]
"""The spec's `training` section: one of TRAINING_SECTIONS, chosen by `algorithm`."""


def training_section(algorithm: str) -> type:
    """The training section of `algorithm` (KeyError for an unknown one)."""
    return TRAINING_SECTIONS[algorithm]


@dataclass(frozen=True)
class ResourcesSpec(_SpecNode):
    """What a run needs from its worker (training.distributed): data-parallel processes, and GPUs."""

    processes: Annotated[
        int, _int(1, LIMITS["processes"], "data-parallel ranks (torch.distributed; 1 = a single process)")
    ] = 1
    devices: Annotated[
        int,
        _int(0, LIMITS["processes"], "GPUs the run uses, one per process (0 = CPU); > 0 needs the gpu queue"),
    ] = 0


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
    training: TrainingSpec = field(default_factory=ReinforceCommTraining)
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


def preset_terms(preset: str) -> tuple[RewardTermSpec, ...]:
    """The reward terms a preset stands for (KeyError for an unknown preset)."""
    return tuple(RewardTermSpec(term, FrozenDict(w)) for term, w in REWARD_PRESETS[preset].items())
