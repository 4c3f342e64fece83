"""The training options one algorithm alone reads, one options model per algorithm family.

Each option is declared once, on its field here, with the same pydantic metadata as every other spec
option (docs/decisions/0011-one-place-per-spec-option.md). The capability table
(`agents.spec.algorithms.ALGORITHM_TABLE`) names the options model each algorithm reads, and each
algorithm's training section (`agents.spec.nodes.TRAINING_SECTIONS`) is the common options plus its model:
the spec's `training` is a union of those sections on `algorithm`. Who reads an option is therefore said
only here: the validator, the advice, the JSON Schema's `oneOf` and the designer's Training tab all derive
it from the sections (docs/decisions/0016-the-algorithm-declares-its-options.md).

`UNREAD` says what the validator does with an option of the model set away from its default under an
algorithm that does not read it: "error" refuses the spec at the option's path, "warning" lets it train
and says the option changes nothing (`agents.spec.advice`). At its default (a draft saved before the
union wrote every option out) it is dropped on read (`agents.spec.migrate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from agents.spec.options import BASELINES, READINGS, RECEPTIONS, SHARINGS, TEACHERS

__all__ = ["ReinforceCommOptions", "PpoOptions"]


def _int(lo: int, hi: int, description: str) -> Any:
    """An integer option in [lo, hi]."""
    return Field(ge=lo, le=hi, description=description)


@dataclass(frozen=True)
class ReinforceCommOptions:
    """What only reinforce_comm reads: its baseline, adapter training, and the reading of clues phrased in
    ways never seen in training (docs/decisions/0005-token-attention-for-unseen-phrasings.md)."""

    UNREAD: ClassVar[str] = "warning"  # stored MAPPO drafts set some of these: they must keep loading
    LABEL: ClassVar[str] = "REINFORCE"

    baseline: Annotated[
        Literal[BASELINES],
        Field(description="reinforce_comm's baseline: a moving average or a learned value"),
    ] = "moving_average"
    train_adapters: Annotated[bool, Field(description="train the agents' LoRA adapters too")] = False
    reception: Annotated[
        Literal[RECEPTIONS],
        Field(description='"weighted" (m = Σ w·msg) or "gated" (delivered = heard at full weight)'),
    ] = "weighted"
    reading: Annotated[
        Literal[READINGS],
        Field(description='"shared" (one first layer reads every agent\'s text) or "per_agent"'),
    ] = "shared"
    embedding_noise: Annotated[
        float,
        Field(ge=0, le=10, description="std of Gaussian noise on the input embeddings in training"),
    ] = 0.0
    paraphrase_consistency: Annotated[
        float,
        Field(ge=0, le=1000, description="weight of the gap msg(clue) vs msg(other phrasing)"),
    ] = 0.0
    token_attention: Annotated[
        bool, Field(description="each agent pools the backbone's token states with a learned query")
    ] = False


@dataclass(frozen=True)
class PpoOptions:
    """What only the PPO trainers (training.mappo: mappo, ippo) read: the critic's warm-up,
    self-imitation, the actor networks, credit assignment and teacher–student augmentation."""

    UNREAD: ClassVar[str] = "error"
    LABEL: ClassVar[str] = "PPO"

    critic_warmup_episodes: Annotated[
        int,
        _int(
            0,
            10_000_000,
            "MAPPO/IPPO: first episodes of PPO that fit the critic alone, the actors kept as they start; 0 = off",
        ),
    ] = 0
    self_imitation: Annotated[
        float,
        Field(
            ge=0,
            le=10,
            description="MAPPO/IPPO: weight of imitating replayed steps that beat the critic; 0 = off",
        ),
    ] = 0.0
    policy_sharing: Annotated[
        Literal[SHARINGS],
        Field(description='"lora" (shared trunk + per-agent LoRA), "independent" or "shared" actors'),
    ] = "lora"
    counterfactual: Annotated[
        bool, Field(description="MAPPO: COMA-style counterfactual baseline for the advantage")
    ] = False
    teacher: Annotated[
        Literal[TEACHERS],
        Field(
            description='"none", "rules" (the env\'s scripted team), "expert" (it reading labels) or "checkpoint"'
        ),
    ] = "none"
    teacher_checkpoint: Annotated[
        str, Field(max_length=1000, description='teacher "checkpoint": a MAPPO checkpoint or run directory')
    ] = ""
    teacher_coef: Annotated[
        float, Field(ge=0, le=100, description="weight of cloning the teacher where it disagrees")
    ] = 1.0
    teacher_fade_episodes: Annotated[
        int, _int(0, 10_000_000, "the teacher's weight falls linearly to 0 over these episodes; 0 = never")
    ] = 0
    teacher_clone_episodes: Annotated[
        int,
        _int(
            0,
            10_000_000,
            "MAPPO/IPPO: the teacher plays these episodes and the actors start as its clone, the first "
            "`best` candidate (the run never serves below it on validation); 0 = off",
        ),
    ] = 0
    clone_kl: Annotated[
        float,
        Field(
            ge=0,
            le=100,
            description="MAPPO/IPPO: weight of KL(clone ‖ policy) on every PPO step, anchoring the actors "
            "to the teacher's clone they started as; 0 = off",
        ),
    ] = 0.0
    actor_lr_scale: Annotated[
        float,
        Field(
            gt=0,
            le=1,
            description="MAPPO/IPPO: the actors' PPO step as a share of `lr` (the critic keeps `lr`; a "
            "teacher's clone is fitted at `lr`); 1 = the same",
        ),
    ] = 1.0
