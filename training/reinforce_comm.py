"""REINFORCE with a baseline for a team that learns whom to listen to (docs/design.md#reinforce-communication).

One file, top to bottom: hyper-parameters, the update step, the training loop with its events and
checkpoints. The team (agents.policy.TeamPolicy) sits on one frozen backbone; each training update
plays `batch_size` parallel one-step episodes, e.g. of the number-guessing task (docs/design.md#number-guessing).

Loss of one update (B episodes, advantage A = R − b, b the baseline):

    L = −mean_B[ A · Σ_acting log π(a | h, m) ]                 actions (heads, messages, trunks)
        −mean_B[ A · explored · Σ_receivers log π(α̃ | s) ]      attention (W_Q, W_K) — see agents.comm
        + value_coef · mean_B[(V(s) − R)²]                       when the baseline is learned
        − entropy_coef · mean_B[H(π(· | h, m))]                  optional entropy bonus
        − attention_entropy_coef(t) · mean[H(α)]                  early attention-entropy floor
        + paraphrase_consistency · gap(msg(clue), msg(same clue, other training phrasing))
                                                                  optional, once the team reads (docs/experiments/2026-11-30-per-agent-reading.md)

How the explored weights enter: in an explored episode the messages are routed with α̃ =
softmax(log α + βε), a sample of the attention policy; its log-density given the state is
log π(α̃|s) = −‖centre(log α̃ − log α)‖²/(2β²) + const (derivation in agents/comm.py), which is
differentiable in α and hence in W_Q, W_K and the agents' hidden states. It is multiplied by the same
advantage as the action's log-probability: the episode's reward judges both the routing and the
answer. With `attention_grad="reinforce"` (default) the task loss does not backpropagate into α:
attention changes only through this score-function term, so it is steered by what routing choices
*earned*, not by which message is momentarily most useful to the head — the latter is what makes
plain backprop collapse onto one sender on some seeds (docs/decisions/0004-routing-gradient.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.backbone import Backbone
from agents.comm import allowed_links, attention_entropy, communication_cost, consensus_score, novelty_score
from agents.policy import READINGS, RECEPTIONS, ROUTINGS, TeamPolicy
from agents.protocol.link import load_link, make_link
from training import checkpoint as ckpt
from training import distributed
from training.events import EventStream


class TrainingError(ValueError):
    """A run that cannot start as specified (environment without the fast path, bad settings…)."""


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
        values: dict[str, Any] = {
            "episodes": t.episodes,
            "batch_size": t.batch_size,
            "lr": t.lr,
            "seed": t.seed,
            "device": t.device,
            "baseline": t.baseline,
            "entropy_coef": t.entropy_coef,
            "grad_clip": t.grad_clip,
            "train_adapters": t.train_adapters,
            "reception": t.reception,
            "reading": t.reading,
            "token_attention": t.token_attention,
            "embedding_noise": t.embedding_noise,
            "paraphrase_consistency": t.paraphrase_consistency,
            "eval_every": t.eval_every,
            "eval_episodes": t.eval_episodes,
            "checkpoint_every": t.checkpoint_every,
            "d_k": c.d_k,
            "delivery_threshold": c.delivery_threshold,
            "message_cost": c.message_cost,
            "explore_share": c.explore_share,
            "beta_start": c.beta_start,
            "beta_end": c.beta_end,
            "beta_decay_episodes": c.beta_decay_episodes,
            "novelty_bonus": c.novelty_bonus,
            "consensus_bonus": c.consensus_bonus,
            "routing": "learned" if c.enabled else "none",
            "protocol": c.protocol,
        }
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


def _accepts_with_texts(env: Any) -> bool:
    """Whether `env.sample_batch` takes `with_texts=` (skipping the strings saves most of its cost)."""
    cached = getattr(type(env), "_mase_with_texts", None)
    if cached is None:
        import inspect

        try:
            cached = "with_texts" in inspect.signature(env.sample_batch).parameters
        except (TypeError, ValueError):
            cached = False
        try:
            type(env)._mase_with_texts = cached
        except (AttributeError, TypeError):
            pass
    return cached


def _get(obj: Any, key: str) -> Any:
    return obj[key] if isinstance(obj, Mapping) else getattr(obj, key)


@dataclass
class UpdateStats:
    """Scalars of one update (plain floats, cheap to report)."""

    success: float
    reward: float
    messages: float
    attention_entropy: float
    explored: float
    loss: float
    grad_norm: float
    baseline: float
    beta: float


@dataclass
class TrainResult:
    """What `ReinforceCommTrainer.run` returns."""

    status: str  # "succeeded" | "cancelled"
    episodes: int
    updates: int
    seconds: float
    metrics: dict[str, float] = field(default_factory=dict)
    checkpoint: str | None = None


class ReinforceCommTrainer:
    """Trains a team spec's heads and communication attention with REINFORCE (+ baseline).

    Needs an environment with the batched fast path (`sample_batch`, `vocabulary`, `agent_kind`),
    such as `number_guess`. Embeddings are looked up from per-agent tables encoded once (frozen
    adapters), so an update costs only the small networks.
    """

    def __init__(
        self,
        spec,
        *,
        backbone: Backbone | None = None,
        env: Any = None,
        eval_env: Any = None,
        group: distributed.Group | None = None,
        **overrides: Any,
    ):
        from agents.envs import make_env, team_kwargs

        self.spec = spec
        self.config = ReinforceCommConfig.from_spec(spec, **overrides)
        cfg = self.config
        # data-parallel rank (training.distributed); a single process by default
        self.group = group if group is not None else distributed.SINGLE
        if self.group.active and cfg.protocol == "hcp":
            raise TrainingError("the hcp protocol fits its codebook on one process's messages: run it in one")
        if spec.environment.name is None and env is None:
            raise TrainingError(
                "the spec names no environment ($.environment.name); reinforce_comm needs one"
            )
        drawn = team_kwargs(spec.environment.name, spec.agents) if spec.agents else {}  # the canvas's team
        self.env = (
            env
            if env is not None
            else make_env(spec.environment.name, dict(spec.environment.params), **drawn)
        )
        for hook in ("sample_batch", "vocabulary", "agent_kind"):
            if not hasattr(self.env, hook):
                raise TrainingError(
                    f"environment {spec.environment.name!r} has no {hook}(); reinforce_comm trains one-step "
                    "tasks through the batched fast path (sample_batch, vocabulary, agent_kind)"
                )
        self.eval_env = eval_env
        self.agents = list(self.env.possible_agents)
        spec_ids = [a.id for a in spec.agents]
        if spec_ids and sorted(spec_ids) != sorted(self.agents):
            raise TrainingError(f"the spec's agents {spec_ids} differ from the environment's {self.agents}")
        self.kinds = {a: self.env.agent_kind(a) for a in self.agents}
        self.acting = [a for a in self.agents if self._n_actions(a) > 1]
        if not self.acting:
            raise TrainingError("no agent of this environment chooses among more than one action")
        self.n_actions = max(self._n_actions(a) for a in self.acting)
        edges = [(e.source, e.target) for e in spec.edges if e.kind == "communication"]
        self.allowed = allowed_links(len(self.agents), edges or None, self.agents)
        self.device = torch.device(
            self.group.device
            or (cfg.device if cfg.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu"))
        )
        torch.manual_seed(cfg.seed)
        self.backbone = backbone or Backbone.load(
            spec.backbone.model, spec.backbone.pooling, spec.backbone.max_length, device=str(self.device)
        )
        self.adapters = None
        if cfg.train_adapters:
            from agents.adapters import attach_adapters

            self.adapters = attach_adapters(self.backbone, spec.agents)
        self.policy = TeamPolicy(
            self.agents,
            self.acting,
            self.n_actions,
            self.backbone.dim,
            self.allowed,
            hidden=cfg.hidden,
            d_msg=cfg.d_msg,
            d_k=cfg.d_k,
            value_baseline=cfg.baseline == "value",
            reception=cfg.reception,
            reading=cfg.reading,
            token_attention=cfg.token_attention,
        ).to(self.device)
        attention_params = list(self.policy.attention.parameters())
        other = [p for n, p in self.policy.named_parameters() if not n.startswith("attention.")]
        # data-parallel: the global batch is processes × batch_size, the step grows by √processes
        self.lr = cfg.lr * distributed.lr_scale(self.group)
        groups = [{"params": other}, {"params": attention_params, "lr": self.lr * cfg.attention_lr_scale}]
        if self.adapters is not None:
            groups.append({"params": [p for a in self.agents for p in self.adapters.parameters(a)]})
        self.optimizer = torch.optim.Adam(groups, lr=self.lr)
        distributed.broadcast_module(self.group, self.policy)  # every rank starts from rank 0's weights
        rank_seed = distributed.rank_seed(cfg.seed, self.group)  # each rank plays its own episodes
        self.rng = np.random.default_rng(rank_seed)
        # on the training device: CUDA ops cannot draw from a CPU generator (the same stream on CPU as before)
        self.generator = torch.Generator(device=self.device).manual_seed(rank_seed + 1)
        self.baseline_value = 0.0
        self.success_ema = 0.0
        self.attention_started_at: int | None = None  # episode at which attention began to learn
        self.episode = 0
        self.update_index = 0
        self.seconds = 0.0  # training wall time, carried across resumes
        self._stop_requested = self._stop_agreed = False  # data-parallel cancel (see _should_stop)
        from training.evolution import EvolutionScheduler
        from training.reward import RewardComposer

        self.reward = RewardComposer.from_spec(spec.reward)
        self.evolution = EvolutionScheduler.from_spec(spec)
        self._tables: dict[int, torch.Tensor] = {}
        self._token_tables: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}  # token_attention only
        self._distractors = torch.tensor([self.kinds[a] == "distractor" for a in self.agents])
        # HCP: what each agent says reaches the others as a compressed frame (agents.protocol.link)
        self.link = make_link(
            cfg.protocol,
            names=self.agents,
            n_codes=cfg.hcp_codes,
            residual_dims=cfg.hcp_residual_dims,
            residual_bits=cfg.hcp_residual_bits,
            fit_messages=cfg.hcp_fit_messages,
            seed=cfg.seed,
        )
        self._senders = self.policy.allowed[self.policy.receivers].any(0).cpu().numpy()
        self._text_bytes: dict[int, np.ndarray] = {}
        self._sampled_bytes: np.ndarray | None = None  # raw UTF-8 size of the texts last sampled
        # (embeddings last sampled, the same clues in other training phrasings, their agent columns)
        self._paraphrased: tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None = None
        if cfg.paraphrase_consistency and not hasattr(self.env, "paraphrase_ids"):
            raise TrainingError(
                f"environment {spec.environment.name!r} has no paraphrase_ids(); paraphrase_consistency "
                "needs one that can re-phrase a clue"
            )

    # ------------------------------------------------------------------ environment plumbing
    def _n_actions(self, agent: str) -> int:
        space = self.env.action_space(agent)
        return int(getattr(space, "n", 1))

    def embedding_table(self, env: Any) -> torch.Tensor:
        """`[N, V_max, dim]` embeddings of every text each agent can show in `env` (encoded once). With
        `token_attention` the table is pooled afresh from the cached token states by the agents' current
        queries, so the task loss reaches them."""
        key = id(env)
        vocabularies = None
        if key not in self._text_bytes:
            vocabularies = [list(env.vocabulary(a)) for a in self.agents]
            self._text_bytes[key] = np.zeros((len(self.agents), max(map(len, vocabularies))), np.int64)
            for i, texts in enumerate(vocabularies):
                self._text_bytes[key][i, : len(texts)] = [len(t.encode("utf-8")) for t in texts]
        if self.config.token_attention:
            return self.policy.pool_tokens(*self._token_table(env))
        if key not in self._tables:
            vocabularies = vocabularies or [list(env.vocabulary(a)) for a in self.agents]
            table = torch.zeros(len(self.agents), max(map(len, vocabularies)), self.backbone.dim)
            with torch.no_grad():
                for i, (agent, texts) in enumerate(zip(self.agents, vocabularies, strict=True)):
                    adapter = agent if self.adapters is not None else None
                    table[i, : len(texts)] = self.backbone.encode(texts, adapter=adapter).cpu()
            self._tables[key] = table.to(self.device)
        return self._tables[key]

    def _token_table(self, env: Any) -> tuple[torch.Tensor, torch.Tensor]:
        """Token states `[N, V_max, L, dim]` of every text each agent can show in `env`, and their mask."""
        key = id(env)
        if key not in self._token_tables:
            encoded = [self.backbone.encode_tokens(list(env.vocabulary(a))) for a in self.agents]
            size = max(states.shape[0] for states, _ in encoded)
            length = max(states.shape[1] for states, _ in encoded)
            states = torch.zeros(len(self.agents), size, length, self.backbone.dim, device=self.device)
            mask = torch.zeros(len(self.agents), size, length, dtype=torch.bool, device=self.device)
            for i, (agent_states, agent_mask) in enumerate(encoded):
                v, t = agent_mask.shape
                states[i, :v, :t], mask[i, :v, :t] = agent_states, agent_mask
            self._token_tables[key] = (states, mask)
        return self._token_tables[key]

    def hear(self, embeddings: torch.Tensor, skip: slice | None = None) -> torch.Tensor | None:
        """The senders' embeddings as the receivers get them over the HCP link (None without one).

        Rows in `skip` are replays of earlier rows (the paired twins of explored episodes): they are
        not sent again; the caller copies what their originals were heard as.
        """
        if self.link is None:
            return None
        rows = torch.ones(embeddings.shape[0], dtype=torch.bool)
        if skip is not None:
            rows[skip] = False
        sent = embeddings[rows.to(embeddings.device)].detach().cpu().numpy()
        raw = self._sampled_bytes[rows.numpy()] if self._sampled_bytes is not None else None
        heard = embeddings.detach().clone()
        heard[rows.to(embeddings.device)] = torch.as_tensor(
            self.link.transmit(sent, self._senders, raw), device=embeddings.device
        )
        return heard

    def sample(self, batch_size: int, env: Any = None, rng: np.random.Generator | None = None):
        """A batch of fresh episodes: (embeddings `[B, N, dim]`, secrets `[B]`)."""
        env = env if env is not None else self.env
        rng = rng if rng is not None else self.rng
        needs_texts = self.adapters is not None and self.config.train_adapters and torch.is_grad_enabled()
        if not needs_texts and _accepts_with_texts(env):
            batch = env.sample_batch(batch_size, rng, with_texts=False)  # ids suffice: embeddings are cached
        else:
            batch = env.sample_batch(batch_size, rng)
        ids = _get(batch, "text_ids")
        secrets = torch.as_tensor(np.asarray(_get(batch, "secrets")), dtype=torch.long, device=self.device)
        if needs_texts:
            texts = _get(batch, "texts")
            embeddings = torch.stack([self.backbone.encode(texts[a], adapter=a) for a in self.agents], dim=1)
            return embeddings.to(self.device), secrets
        table = self.embedding_table(env)
        ids_array = np.stack([np.asarray(ids[a]) for a in self.agents], axis=1)
        self._sampled_bytes = self._text_bytes[id(env)][np.arange(len(self.agents)), ids_array]
        index = torch.as_tensor(ids_array, device=self.device)
        agent_index = torch.arange(len(self.agents), device=self.device).unsqueeze(0)
        embeddings = table[agent_index, index]
        self._paraphrased = None
        if self.config.paraphrase_consistency and env is self.env and torch.is_grad_enabled():
            self._paraphrased = self._paraphrase(embeddings, ids_array, table, rng)
        return embeddings, secrets

    def _paraphrase(
        self, embeddings: torch.Tensor, ids: np.ndarray, table: torch.Tensor, rng: np.random.Generator
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor] | None:
        """The sampled clues re-phrased with other templates of the training env (env.paraphrase_ids)."""
        columns, other = [], []
        for i, agent in enumerate(self.agents):
            alternative = self.env.paraphrase_ids(agent, ids[:, i], rng)
            if alternative is not None:
                columns.append(i)
                other.append(table[i, torch.as_tensor(alternative, device=self.device)])
        if not columns:
            return None
        return embeddings, torch.stack(other, dim=1), torch.tensor(columns, device=self.device)

    def _consistency_on(self) -> bool:
        """Paraphrase consistency starts once the team reads its clues (the milestone that starts the
        attention: success EMA at `attention_start_success`). From the first update it pulls the
        messages of a still-random reading together faster than the reward can pull them apart, and
        learning stalled."""
        cfg = self.config
        return bool(cfg.paraphrase_consistency) and (
            self.attention_started_at is not None or self.success_ema >= cfg.attention_start_success
        )

    def _paraphrase_loss(self, embeddings: torch.Tensor, noisy: torch.Tensor) -> torch.Tensor | None:
        """Paraphrase consistency of the batch `embeddings` (as sampled; `noisy` as trained on): what each
        clue agent says should not change when its clue is phrased another way. None when the batch
        was not drawn by `sample` on the training env."""
        if self._paraphrased is None or self._paraphrased[0] is not embeddings:
            return None
        _, paraphrases, columns = self._paraphrased
        cfg = self.config
        if cfg.embedding_noise:
            noise = torch.randn(paraphrases.shape, generator=self.generator, device=self.generator.device)
            noise = noise.to(paraphrases.device)
            paraphrases = paraphrases + cfg.embedding_noise * noise
        return cfg.paraphrase_consistency * self.policy.paraphrase_gap(
            noisy[:, columns], paraphrases, columns
        )

    @property
    def attention_learning(self) -> bool:
        """Whether the attention is past its warm-up (uniform routing while the heads learn to read)."""
        return self.config.routing == "learned" and self.attention_started_at is not None

    def _maybe_start_attention(self) -> None:
        cfg = self.config
        if cfg.routing != "learned" or self.attention_started_at is not None:
            return
        if self.success_ema >= cfg.attention_start_success or self.episode >= cfg.attention_warmup_episodes:
            self.attention_started_at = self.episode

    def beta(self, episode: int | None = None) -> float:
        """Exploration scale β: geometric decay from beta_start to beta_end over beta_decay_episodes,
        counted from the moment attention starts learning."""
        cfg = self.config
        episode = self.episode if episode is None else episode
        since = episode - (self.attention_started_at if self.attention_started_at is not None else episode)
        progress = min(1.0, max(0, since) / max(1, cfg.beta_decay_episodes))
        return cfg.beta_start * (cfg.beta_end / cfg.beta_start) ** progress

    # ------------------------------------------------------------------ the update
    def update(self, embeddings: torch.Tensor, secrets: torch.Tensor) -> UpdateStats:
        """One REINFORCE step on a batch of episodes (the same step the throughput ceiling times)."""
        cfg, policy = self.config, self.policy
        batch = embeddings.shape[0]
        sampled = embeddings
        if cfg.embedding_noise:
            # Training-only input noise: a reading that survives it does not hinge on the exact vector
            # of one training phrasing (held-out templates, docs/experiments/2026-11-29-heldout-phrasings.md).
            noise = torch.randn(embeddings.shape, generator=self.generator, device=self.generator.device)
            noise = noise.to(embeddings.device)
            embeddings = embeddings + cfg.embedding_noise * noise
        consistency = self._paraphrase_loss(sampled, embeddings) if self._consistency_on() else None
        beta = self.beta()
        explore_mask = None
        self._maybe_start_attention()
        n_explored = n_pairs = 0
        if self.attention_learning and cfg.explore_share > 0:
            # The first n_explored episodes route with α̃. Each of the first n_pairs of them is
            # replayed, same state, with α in the unexplored part of the batch: that twin's reward is
            # the explored episode's baseline (a self-critical, per-state baseline).
            n_explored = min(batch, max(1, round(cfg.explore_share * batch)))
            n_pairs = min(n_explored, batch - n_explored)
            if n_pairs:
                twins = slice(n_explored, n_explored + n_pairs)
                embeddings = embeddings.clone()
                secrets = secrets.clone()
                embeddings[twins] = embeddings[:n_pairs]
                secrets[twins] = secrets[:n_pairs]
            explore_mask = torch.zeros(batch, dtype=torch.bool, device=self.device)
            explore_mask[:n_explored] = True
        twins = slice(n_explored, n_explored + n_pairs) if n_pairs else None
        heard = self.hear(embeddings, skip=twins)
        if heard is not None and twins is not None:
            heard[twins] = heard[:n_pairs]
        out = policy(
            embeddings,
            routing=cfg.routing,
            explore_mask=explore_mask,
            beta=beta,
            threshold=cfg.delivery_threshold,
            generator=self.generator,
            attention_grad=cfg.attention_grad,
            heard=heard,
        )
        log_probs = torch.log_softmax(out.logits, dim=-1)  # [B, A, K]
        probs = log_probs.exp()
        actions = torch.multinomial(probs.reshape(-1, probs.shape[-1]), 1, generator=self.generator)
        actions = actions.view(batch, -1)
        chosen = log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1).sum(-1)  # [B]
        success = (actions == secrets.unsqueeze(-1)).float().mean(-1)
        reward, delivered_count = self._reward(success, out)
        if out.value is not None:
            baseline = out.value.detach()
        else:
            baseline = torch.full_like(reward, self.baseline_value)
        advantage = reward - baseline
        loss = -(advantage * chosen).mean()
        receivers = policy.receivers
        if explore_mask is not None and bool(explore_mask.any()):
            from agents.comm import exploration_log_prob

            allowed = policy.allowed.expand_as(out.alpha) & receivers.view(1, -1, 1)
            log_pi = exploration_log_prob(out.route, out.alpha, beta, allowed)[:, receivers].sum(-1)
            routing_advantage = advantage.clone()
            if n_pairs:
                # Rao-Blackwellised over the action: the routing is judged by the probability the
                # answer had of being right under it (plus its delivery cost), not by one sampled
                # guess, which would add the action's own sampling noise to the routing's signal.
                right = log_probs.gather(-1, secrets.view(-1, 1, 1).expand(-1, log_probs.shape[1], 1)).exp()
                expected = self.reward.weight("task", self.evolution.phase) * right.squeeze(-1).mean(-1)
                expected = expected.detach() - communication_cost(
                    out.delivered[:, receivers], cfg.message_cost
                )
                twin = slice(n_explored, n_explored + n_pairs)
                routing_advantage[:n_pairs] = expected[:n_pairs] - expected[twin]
            loss = loss - (routing_advantage * explore_mask.float() * log_pi).sum() / batch
        if out.value is not None:
            loss = loss + cfg.value_coef * (out.value - reward).pow(2).mean()
        if cfg.entropy_coef:
            loss = loss - cfg.entropy_coef * (-(probs * log_probs).sum(-1)).mean()
        if consistency is not None:
            loss = loss + consistency
        row_entropy = attention_entropy(out.alpha[:, receivers], policy.allowed[receivers])
        floor = self._attention_entropy_coef()
        if floor and self.attention_learning:
            loss = loss - floor * row_entropy.mean()
        # The attention's step size follows β: as exploration narrows, the paired reward differences
        # shrink while Adam keeps its steps at lr, so without this α random-walks among the useful
        # senders late in training and the head keeps re-adapting to the moving mixture.
        self.optimizer.param_groups[1]["lr"] = self.lr * cfg.attention_lr_scale * beta / cfg.beta_start
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        # data-parallel: gradients, and the batch means that steer the schedule, averaged over the ranks
        # (and rank 0's stop request, so that one collective per update carries everything)
        mean_reward, mean_success, stop = distributed.average_gradients(
            self.group,
            [p for g in self.optimizer.param_groups for p in g["params"]],
            (float(reward.mean()), float(success.mean()), float(self._stop_requested)),
        )
        self._stop_agreed = stop > 0
        self._apply_update_periods()
        grad_norm = torch.nn.utils.clip_grad_norm_(
            [p for g in self.optimizer.param_groups for p in g["params"]], cfg.grad_clip
        )
        self.optimizer.step()
        if self.adapters is not None:
            self.backbone.clear_cache(self.agents)
            self._tables.clear()
        self.success_ema = 0.95 * self.success_ema + 0.05 * mean_success
        if out.value is None:
            m = cfg.baseline_momentum
            self.baseline_value = m * self.baseline_value + (1 - m) * mean_reward
        self.episode += batch * self.group.world_size
        self.update_index += 1
        return UpdateStats(
            success=mean_success,
            reward=mean_reward,
            messages=float(delivered_count.mean()),
            attention_entropy=float(row_entropy.detach().mean()) if row_entropy.numel() else 0.0,
            explored=float(explore_mask.float().mean()) if explore_mask is not None else 0.0,
            loss=float(loss.detach()),
            grad_norm=float(grad_norm),
            baseline=float(baseline.mean()),
            beta=beta,
        )

    def _attention_entropy_coef(self) -> float:
        cfg = self.config
        if not cfg.attention_entropy_coef or cfg.attention_entropy_episodes <= 0:
            return 0.0
        return cfg.attention_entropy_coef * max(0.0, 1 - self.episode / cfg.attention_entropy_episodes)

    def _reward(self, success: torch.Tensor, out) -> tuple[torch.Tensor, torch.Tensor]:
        """Composed reward per episode and delivered messages per episode."""
        cfg, policy = self.config, self.policy
        phase = self.evolution.phase
        delivered = out.delivered[:, policy.receivers]
        count = delivered.flatten(1).sum(-1).float()
        reward = self.reward.weight("task", phase) * success
        reward = reward - communication_cost(delivered, cfg.message_cost)
        reward = reward - self.reward.weight("communication_cost", phase) * count
        novelty_w = cfg.novelty_bonus + self.reward.weight("novelty", phase)
        if novelty_w:
            idx = policy.acting_index.to(out.hidden.device)
            own = torch.einsum(
                "bam,amk->bak", policy.message(out.hidden[:, idx]), policy.sender_code[idx]
            ).detach()
            novelty = novelty_score(own, out.received[:, idx]).mean(-1)
            reward = reward + novelty_w * novelty.detach() * (success > 0).float()
        consensus_w = cfg.consensus_bonus + self.reward.weight("consensus", phase)
        if consensus_w:
            reward = reward + consensus_w * consensus_score(out.received.detach(), policy.receivers)
        return reward.detach(), count

    def _apply_update_periods(self) -> None:
        # Agents with update_period k > 1 keep their head fixed except every k-th update.
        frozen = [
            i for i, a in enumerate(self.agents) if not self.evolution.should_update(a, self.update_index)
        ]
        if not frozen:
            return
        policy = self.policy
        acting_frozen = [k for k, a in enumerate(self.acting) if self.agents.index(a) in frozen]
        for parameter in (policy.head_w1, policy.head_b1, policy.head_w2, policy.head_b2):
            if parameter.grad is not None and acting_frozen:
                parameter.grad[acting_frozen] = 0

    # ------------------------------------------------------------------ evaluation
    @torch.no_grad()
    def evaluate(self, episodes: int = 1000, env: Any = None, seed: int | None = None) -> dict[str, Any]:
        """Greedy play on fresh episodes with α (no exploration, no sampling): success, messages,
        attention entropy, attention share on distractors and the mean attention matrix."""
        cfg, policy = self.config, self.policy
        env = env if env is not None else self.env
        rng = np.random.default_rng(self.config.seed + 10_007 if seed is None else seed)
        generator = torch.Generator(device=self.device).manual_seed(int(rng.integers(2**31)))
        totals = {"success": 0.0, "messages": 0.0, "entropy": 0.0, "distractor": 0.0}
        matrix = torch.zeros(len(self.agents), len(self.agents))
        done = 0
        was_training = policy.training
        policy.eval()
        while done < episodes:
            size = min(256, episodes - done)
            embeddings, secrets = self.sample(size, env=env, rng=rng)
            out = policy(
                embeddings,
                routing=cfg.routing,
                threshold=cfg.delivery_threshold,
                generator=generator,
                heard=self.hear(embeddings),
            )
            actions = out.logits.argmax(-1)
            totals["success"] += float((actions == secrets.unsqueeze(-1)).float().mean(-1).sum())
            receivers = policy.receivers
            totals["messages"] += float(out.delivered[:, receivers].sum())
            entropy = attention_entropy(out.alpha[:, receivers], policy.allowed[receivers])
            totals["entropy"] += float(entropy.mean(-1).sum()) if entropy.numel() else 0.0
            share = out.weights[:, receivers][..., self._distractors.to(out.weights.device)].sum(-1)
            totals["distractor"] += float(share.mean(-1).sum()) if share.numel() else 0.0
            matrix += out.weights.sum(0).cpu()
            done += size
        policy.train(was_training)
        return {
            "success": totals["success"] / episodes,
            "messages_per_episode": totals["messages"] / episodes,
            "attention_entropy": totals["entropy"] / episodes,
            "distractor_attention": totals["distractor"] / episodes,
            "attention": (matrix / episodes).tolist(),
            "episodes": episodes,
        }

    # ------------------------------------------------------------------ checkpoints
    def save_checkpoint(self, root: Path, events: EventStream | None = None) -> Path:
        """Write a checkpoint of everything needed to continue bit-for-bit (see training.checkpoint)."""
        state = self.policy.state_dict()
        heads = {k: v for k, v in state.items() if not k.startswith("attention.")}
        comm = {k: v for k, v in state.items() if k.startswith("attention.")}
        opt_tensors, opt_meta = ckpt.optimizer_tensors(self.optimizer)
        meta = {
            "episode": self.episode,
            "update": self.update_index,
            "seconds": self.seconds,
            "baseline": self.baseline_value,
            "success_ema": self.success_ema,
            "attention_started_at": self.attention_started_at,
            "numpy_rng": self.rng.bit_generator.state,
            "optimizer": opt_meta,
            "evolution": self.evolution.state_dict(),
            "event_seq": events.last_seq if events is not None else None,
            "agents": self.agents,
            "config": asdict(self.config),
            "spec": self.spec.to_dict() if hasattr(self.spec, "to_dict") else None,
        }
        groups = {
            "heads": heads,
            "comm": comm,
            "optimizer": opt_tensors,
            "rng": {"torch": self.generator.get_state()},
        }
        if self.link is not None:
            # the codebook travels with the weights: whoever loads them reads messages the same way
            arrays, meta["protocol"] = self.link.state()
            if arrays:
                groups["protocol"] = {k: torch.from_numpy(v) for k, v in arrays.items()}
        return ckpt.write_checkpoint(Path(root), self.update_index, groups, meta, adapters=self.adapters)

    def load_checkpoint(self, path: Path) -> dict[str, Any]:
        """Restore a checkpoint written by `save_checkpoint`; returns its JSON state."""
        path = Path(path)
        state = ckpt.read_state(path)
        if state.get("agents") != self.agents:
            raise ckpt.CheckpointError(
                f"checkpoint {path} is for agents {state.get('agents')}, not {self.agents}"
            )
        tensors = {
            **ckpt.load_tensors(path / "heads.safetensors"),
            **ckpt.load_tensors(path / "comm.safetensors"),
        }
        ckpt.load_state_dict_strict(self.policy, tensors, "policy heads / communication weights")
        ckpt.restore_optimizer(
            self.optimizer, ckpt.load_tensors(path / "optimizer.safetensors"), state["optimizer"]
        )
        for index, group in enumerate(self.optimizer.param_groups):
            if index != 1:  # this run's step size (√processes), not the saving run's; [1] follows β
                group["lr"] = self.lr
        rng = ckpt.load_tensors(path / "rng.safetensors")
        try:
            self.generator.set_state(rng["torch"])
            self.rng.bit_generator.state = state["numpy_rng"]
        except (KeyError, ValueError, TypeError, RuntimeError) as exc:
            raise ckpt.CheckpointError(f"checkpoint {path} has an unusable RNG state ({exc})") from exc
        if self.group.rank:  # rank 0 saved its own streams; the others draw fresh ones of their own
            fresh = [self.config.seed, self.group.rank, int(state["update"])]
            self.rng = np.random.default_rng(fresh)
            self.generator.manual_seed(int(np.random.SeedSequence(fresh).generate_state(1)[0]))
        if self.adapters is not None:
            self.adapters.load(path / "adapters")
            self._tables.clear()
        self.episode = int(state["episode"])
        self.update_index = int(state["update"])
        self.seconds = float(state.get("seconds", 0.0))
        self.baseline_value = float(state["baseline"])
        self.success_ema = float(state.get("success_ema", 0.0))
        started = state.get("attention_started_at")
        self.attention_started_at = None if started is None else int(started)
        self.evolution.load_state_dict(state["evolution"])
        if self.link is not None:
            self.link = load_link(path, state, events=self.link.events)
        return state

    # ------------------------------------------------------------------ the loop
    def run(
        self,
        events: EventStream,
        should_stop: Callable[[], bool] = lambda: False,
        checkpoint_root: Path | None = None,
        episodes: int | None = None,
        resumed_from: int | None = None,
        progress: Callable[[UpdateStats, dict], None] | None = None,
    ) -> TrainResult:
        """Train until `episodes` (default: the spec's) have been played, reporting through `events`.

        `should_stop()` is read before every update; when it returns True the run checkpoints and
        ends with status "cancelled". `progress(stats, info)` is called after every update (the CLI's
        progress bar).
        """
        cfg = self.config
        total = cfg.episodes if episodes is None else episodes
        events.emit(
            "started",
            resumed_from=resumed_from,
            algorithm="reinforce_comm",
            episodes=total,
            agents=self.agents,
            acting=self.acting,
            backbone=self.backbone.describe(),
            routing=cfg.routing,
        )
        self.embedding_table(self.env)
        if self.link is not None:
            self.link.events = events
        last_eval = self.episode
        last_ckpt = self.episode
        last_cycle = self.episode
        window: list[UpdateStats] = []
        eval_metrics: dict[str, Any] = {}
        if self.episode == 0 and cfg.eval_every:
            # A fresh run reports where it starts (uniform attention, chance success): the run page's
            # replay then shows the graph going from uniform to learned. Not counted in the wall time.
            eval_metrics = self._evaluate_and_report(events)
        start = time.perf_counter() - self.seconds
        status = "succeeded"
        self._window_clock = time.perf_counter()
        while self.episode < total:
            if self._should_stop(should_stop):
                status = "cancelled"
                break
            embeddings, secrets = self.sample(cfg.batch_size)
            stats = self.update(embeddings, secrets)
            self.seconds = time.perf_counter() - start
            window.append(stats)
            if self.update_index % cfg.metrics_every == 0:
                events.emit("metrics", **self._window_metrics(window))
                window = []
            if cfg.eval_every and self.episode - last_eval >= cfg.eval_every:
                last_eval = self.episode
                eval_metrics = self._evaluate_and_report(events)
            if self.update_index % cfg.attention_every == 0 and self.group.is_main:
                self._emit_attention(events, embeddings)
            cycle = self.spec.evolution.cycle_episodes
            if cycle and self.episode - last_cycle >= cycle:
                last_cycle = self.episode
                score = eval_metrics.get("success", stats.success)
                self.evolution.events = events
                self.evolution.end_cycle({a: score for a in self.agents})
            if (
                checkpoint_root is not None
                and cfg.checkpoint_every
                and self.episode - last_ckpt >= cfg.checkpoint_every
            ):
                last_ckpt = self.episode
                self._checkpoint(events, checkpoint_root, eval_metrics)
            if progress is not None:
                progress(stats, {"episode": self.episode, "total": total, "seconds": self.seconds})
        if window:
            events.emit("metrics", **self._window_metrics(window))
        final = self._evaluate_and_report(events) if status == "succeeded" else eval_metrics
        path = None
        if checkpoint_root is not None:
            path = str(self._checkpoint(events, checkpoint_root, final))
        metrics = {k: v for k, v in final.items() if isinstance(v, (int, float))}
        events.emit("finished", status=status, metrics=metrics, episode=self.episode, seconds=self.seconds)
        return TrainResult(status, self.episode, self.update_index, self.seconds, metrics, path)

    def _should_stop(self, should_stop: Callable[[], bool]) -> bool:
        """One process: `should_stop()`. A group: the request rank 0 read before the previous update,
        agreed on in that update's all-reduce, so that every rank stops after the same update."""
        if not self.group.active:
            return should_stop()
        if self.update_index == 0:  # before the first update: no all-reduce carried it yet
            return distributed.any_true(self.group, should_stop())
        self._stop_requested = self._stop_requested or should_stop()
        return self._stop_agreed

    def _window_metrics(self, window: list[UpdateStats]) -> dict[str, Any]:
        averaged = {k: float(np.mean([getattr(s, k) for s in window])) for k in asdict(window[0])}
        return {
            "step": self.update_index,
            "episode": self.episode,
            "phase": self.evolution.phase,
            "seconds": self.seconds,
            **averaged,
            **(self.link.metrics() if self.link is not None else {}),
            **self._rank_throughput(len(window)),
        }

    def _rank_throughput(self, updates: int) -> dict[str, float]:
        """Data-parallel runs: episodes per second of each rank since the last report, and their sum."""
        if not self.group.active:
            return {}
        now = time.perf_counter()
        rate = updates * self.config.batch_size / max(now - self._window_clock, 1e-9)
        self._window_clock = now
        rates = distributed.gather_floats(self.group, rate)
        per_rank = {f"rank{r}_episodes_per_second": x for r, x in enumerate(rates)}
        return {"episodes_per_second": sum(rates), **per_rank}

    def _evaluate_and_report(self, events: EventStream) -> dict[str, Any]:
        n, group = self.config.eval_episodes, self.group
        if group.active:  # each rank plays its share of the evaluation episodes; the means are averaged
            share = -(-n // group.world_size)
            result = self.evaluate(share, seed=self.config.seed + 10_007 + 7_919 * group.rank)
            result = {**distributed.mean_metrics(group, result), "episodes": share * group.world_size}
        else:
            result = self.evaluate(n)
        events.emit(
            "metrics",
            step=self.update_index,
            episode=self.episode,
            eval_success=result["success"],
            eval_messages=result["messages_per_episode"],
            eval_attention_entropy=result["attention_entropy"],
            eval_distractor_attention=result["distractor_attention"],
        )
        events.emit(
            "attention", step=self.update_index, agents=self.agents, matrix=result["attention"], mode="eval"
        )
        return result

    @torch.no_grad()
    def _emit_attention(self, events: EventStream, embeddings: torch.Tensor) -> None:
        out = self.policy(
            embeddings,
            routing=self.config.routing,
            threshold=self.config.delivery_threshold,
            heard=self.hear(embeddings),
        )
        events.emit(
            "attention", step=self.update_index, agents=self.agents, matrix=out.alpha.mean(0), mode="train"
        )

    def _checkpoint(self, events: EventStream, root: Path, metrics: Mapping[str, Any]) -> Path:
        path = self.save_checkpoint(root, events)
        scalars = {k: v for k, v in metrics.items() if isinstance(v, (int, float))}
        events.emit(
            "checkpoint", step=self.update_index, path=str(path), metrics=scalars, episode=self.episode
        )
        return path


def parameter_count(module: torch.nn.Module) -> int:
    """Trainable parameters of a module."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


__all__ = ["ReinforceCommConfig", "ReinforceCommTrainer", "TrainResult", "TrainingError", "UpdateStats"]
