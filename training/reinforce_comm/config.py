"""The trainer's hyper-parameters: `ReinforceCommConfig`, read from a team spec and checked."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from agents.policy import READINGS, RECEPTIONS, ROUTINGS
from training.spec_options import same_named
from training.trainer import TrainingError


@dataclass
class ReinforceCommConfig:
    """Hyper-parameters. `from_spec` fills them from a TeamSpec; keyword overrides win."""

    episodes: int = 3000
    batch_size: int = 32
    lr: float = 3e-3
    seed: int = 0
    device: str = "cpu"
    baseline: str = "moving_average"  # "moving_average" | "value"
    baseline_momentum: float = 0.95  # moving average: b ← m·b + (1−m)·mean(R)
    value_coef: float = 0.5
    entropy_coef: float = 0.0
    grad_clip: float = 1.0
    train_adapters: bool = False
    hidden: int = 64
    d_msg: int = 16
    reception: str = "weighted"  # "weighted" | "gated" (delivered = heard at full weight; agents.policy)
    embedding_noise: float = 0.0  # std of Gaussian noise on the input embeddings in training updates
    # weight of the paraphrase-consistency loss (TeamPolicy.paraphrase_gap: a clue's message against the
    # same clue in another training phrasing, scale-free); it starts once the team reads its clues
    paraphrase_consistency: float = 0.0
    # "shared" | "per_agent": one first layer reads every agent's text, or each agent has its own
    reading: str = "shared"
    # each agent pools the backbone's token states with its own learned query (TeamPolicy.pool_tokens)
    token_attention: bool = False
    # communication
    routing: str = "learned"  # "learned" | "broadcast" | "random" | "none"
    attention_grad: str = "reinforce"  # "reinforce" (stop-gradient into α) | "backprop"
    d_k: int = 32
    delivery_threshold: float = 0.05
    message_cost: float = 0.01
    explore_share: float = 0.5
    beta_start: float = 1.0
    beta_end: float = 0.05
    beta_decay_episodes: int = 2000
    novelty_bonus: float = 0.0
    consensus_bonus: float = 0.0
    attention_lr_scale: float = (
        0.03  # learning rate of W_Q/W_K relative to `lr` (384-d inputs: keep it small)
    )
    attention_start_success: float = (
        0.5  # attention starts learning once training success (EMA) reaches this…
    )
    attention_warmup_episodes: int = 100_000  # …or after this many episodes, whichever comes first
    attention_entropy_coef: float = 0.0  # entropy floor on α, fading out linearly over floor episodes
    attention_entropy_episodes: int = 0
    # schedule of reports
    eval_every: int = 500
    eval_episodes: int = 200
    checkpoint_every: int = 500
    metrics_every: int = 10  # updates between "metrics" events
    attention_every: int = 50  # updates between "attention" events
    # message protocol (communication.protocol): "hcp" sends every message through semantic compression
    protocol: str | None = None
    hcp_codes: int = 64
    hcp_residual_dims: int = 8
    hcp_residual_bits: int = 2
    hcp_fit_messages: int = 256  # per sender

    @classmethod
    def from_spec(cls, spec, **overrides: Any) -> ReinforceCommConfig:
        """Read `spec.training`, `spec.communication` and the policy-head size; then apply overrides."""
        t, c = spec.training, spec.communication
        # Options named as this config names them arrive as given, null ones left at the defaults here
        # (training.spec_options); only the routing is translated.
        values = same_named(cls, c, t)
        values["routing"] = "learned" if c.enabled else "none"
        if spec.agents:
            values["hidden"] = max(a.policy_head.hidden for a in spec.agents)
        known = {f.name for f in fields(cls)}
        unknown = set(overrides) - known
        if unknown:
            raise TrainingError(f"unknown reinforce_comm setting(s) {sorted(unknown)}")
        values.update(overrides)
        config = cls(**values)
        config.check()
        return config

    def check(self) -> None:
        """Refuse settings the loop cannot run with, naming the setting."""
        if self.reading not in READINGS:
            raise TrainingError(f"reading must be one of {list(READINGS)}, got {self.reading!r}")
        if self.reception not in RECEPTIONS:
            raise TrainingError(f"reception must be one of {list(RECEPTIONS)}, got {self.reception!r}")
        if self.embedding_noise < 0:
            raise TrainingError("embedding_noise must be >= 0")
        if self.token_attention and self.train_adapters:
            raise TrainingError(
                "token_attention pools the bare backbone's token states; it cannot train adapters too "
                "(set train_adapters or token_attention to false)"
            )
        if self.paraphrase_consistency < 0:
            raise TrainingError("paraphrase_consistency must be >= 0")
        if self.routing not in ROUTINGS:
            raise TrainingError(f"routing must be one of {list(ROUTINGS)}, got {self.routing!r}")
        if self.attention_grad not in ("reinforce", "backprop"):
            raise TrainingError(
                f"attention_grad must be 'reinforce' or 'backprop', got {self.attention_grad!r}"
            )
        if self.baseline not in ("moving_average", "value"):
            raise TrainingError(
                f"training.baseline must be 'moving_average' or 'value', got {self.baseline!r}"
            )
        if self.batch_size < 1 or self.episodes < 0:
            raise TrainingError("training.batch_size must be >= 1 and training.episodes >= 0")
        if not 0 <= self.explore_share <= 1:
            raise TrainingError("communication.explore_share must be within [0, 1]")
        if self.beta_start <= 0 or self.beta_end <= 0:
            raise TrainingError("communication.beta_start and beta_end must be > 0")
        if self.protocol not in (None, "dense", "hcp"):
            raise TrainingError(
                f"communication.protocol must be null, 'dense' or 'hcp', got {self.protocol!r}"
            )
