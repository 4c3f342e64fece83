"""MAPPO's hyper-parameters: the settings any trainer has, the communication's and PPO's own, in one
flat dataclass built of the three."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from agents.spec.algorithms import either, is_ppo, sends_messages


@dataclass
class TrainerSettings:
    """What any trainer of a team needs, whatever its algorithm: the budget and its schedule, the optimiser's
    step, the policy heads' width, the seed."""

    updates: int = 50  # training updates (each collects `episodes_per_update` episodes)
    episodes_per_update: int = 32
    lr: float = 3e-3
    entropy_coef: float = 0.01
    grad_clip: float = 1.0
    hidden: int = 64
    eval_every: int = 10  # updates between validations (0 = never)
    eval_episodes: int = 64
    checkpoint_every: int = 10  # updates between checkpoints (0 = only at the end)
    cycle_updates: int = 5  # training updates per evolution cycle
    seed: int = 0
    threads: int = 1


@dataclass
class CommunicationSettings:
    """The learned communication between the actors (docs/design.md#communication-attention)."""

    comm: bool | None = None  # learned communication; None = on for mappo, off for ippo
    msg_dim: int = 32
    d_k: int = 32
    explore_share: float = 0.5  # share of training episodes routing with noisy attention
    beta_start: float = 1.0
    beta_end: float = 0.05
    protocol: str | None = None  # "hcp": messages travel semantically compressed (agents.protocol.link)
    reader_hidden: int = 128  # clause reader (observations ending in a clause block): hidden width
    reader_outputs: int = 8  # clause reader: scores per clause, max-pooled over the clauses
    actor_evidence: str = "reader"  # what the actors read of their clause readers (environment's actor_evidence)
    reader_fixed: bool = (
        False  # clause readers keep their supervised pre-training (cloning and PPO skip them)
    )


@dataclass
class PpoSettings:
    """What PPO itself reads: the clipped update and GAE, the critic, the actors' sharing, and the learning
    aids (teacher, self-imitation, the critic's warm-up)."""

    algorithm: str = "mappo"  # "mappo" | "ippo"
    counterfactual: bool = False  # COMA-style counterfactual baseline for the advantage
    critic_input: str = "state"  # MAPPO critic: "state" (V_i(s)) | "state_and_obs" (V_i(s, o_i))
    sharing: str = "lora"  # "independent" | "lora" | "shared"
    epochs: int = 4  # PPO epochs over each batch
    minibatches: int = 2
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip: float = 0.2
    value_clip: float | None = 0.2
    value_coef: float = 0.5
    value_norm: bool = True
    lora_rank: int = 4
    teacher_coef: float = 0.0  # weight of the behaviour-cloning loss on teacher samples (0 = off)
    teacher_fade_updates: int = 0  # the teacher's weight falls linearly to 0 over these updates (0 = never)
    self_imitation: float = 0.0  # weight of imitating replayed steps that beat the critic (0 = off)
    replay_capacity: int = 2048  # steps in the recent replay buffer; the elite buffer holds a quarter as many
    sil_minibatches: int = 4  # self-imitation minibatches after each update's PPO epochs
    sil_batch_size: int = 128  # replayed steps per self-imitation minibatch (half from the elite buffer)
    useful_eps: float = 0.05  # a student sample is "useful" when its advantage exceeds this
    critic_warmup_updates: int = 0  # first updates fit the critic alone: the actors keep their start
    teacher_clone_episodes: int = 0  # the teacher plays these before the first update; the actors clone it
    clone_kl: float = 0.0  # weight of KL(start ‖ policy) on every step (`clone_anchor`; 0 = off)
    actor_lr_scale: float = 1.0  # the actors' PPO step is lr × this (the critic's stays lr)


@dataclass
class MappoConfig(PpoSettings, CommunicationSettings, TrainerSettings):
    """Hyper-parameters of one MAPPO / IPPO run: the settings every trainer has, the communication's, and
    PPO's own. One flat object (`cfg.lr`, `cfg.clip`), and a checkpoint stores it as one flat dict with
    the same keys as before the split, so every checkpoint loads."""

    def __post_init__(self) -> None:
        if not is_ppo(self.algorithm):
            raise ValueError(
                f"training.algorithm must be {either('ppo', quoted=True)}, got {self.algorithm!r}"
            )
        if self.sharing not in ("independent", "lora", "shared"):
            raise ValueError(f"sharing must be 'independent', 'lora' or 'shared', got {self.sharing!r}")
        if self.critic_input not in ("state", "state_and_obs"):
            raise ValueError(f"critic_input must be 'state' or 'state_and_obs', got {self.critic_input!r}")
        if self.comm is None:
            self.comm = sends_messages(self.algorithm)
        if self.self_imitation < 0:
            raise ValueError(f"self_imitation must be >= 0, got {self.self_imitation}")
        if self.critic_warmup_updates < 0:
            raise ValueError(f"critic_warmup_updates must be >= 0, got {self.critic_warmup_updates}")
        if not 0 < self.actor_lr_scale <= 1:
            raise ValueError(f"actor_lr_scale must be in (0, 1], got {self.actor_lr_scale}")
        if self.clone_kl < 0:
            raise ValueError(f"clone_kl must be >= 0, got {self.clone_kl}")
        if self.teacher_fade_updates < 0:
            raise ValueError(f"teacher_fade_updates must be >= 0, got {self.teacher_fade_updates}")
        names = ("updates", "episodes_per_update", "epochs", "minibatches", "hidden", "replay_capacity")
        for name in (*names, "sil_minibatches", "sil_batch_size"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> MappoConfig:
        """Build from a dict, rejecting unknown keys with their names."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(doc) - known)
        if unknown:
            raise ValueError(f"unknown MAPPO setting(s) {unknown}; known: {sorted(known)}")
        return cls(**doc)
