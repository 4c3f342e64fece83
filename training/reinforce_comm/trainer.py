"""`ReinforceCommTrainer`: a team spec's networks, optimizer and random streams, put together.

The trainer's behaviour lives in one module per part, each read top to bottom:
`episodes` (sampling, embeddings), `update` (the REINFORCE step), `loop` (run, evaluate, report) and
`checkpointing` (save, resume); this module builds the state they share.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from agents.backbone import Backbone
from agents.comm import allowed_links
from agents.policy import TeamPolicy
from agents.protocol.link import make_link
from training import distributed
from training.reinforce_comm.checkpointing import Checkpointing
from training.reinforce_comm.config import ReinforceCommConfig
from training.reinforce_comm.episodes import Episodes
from training.reinforce_comm.loop import TrainingLoop
from training.reinforce_comm.update import ReinforceUpdate
from training.trainer import TrainingError


class ReinforceCommTrainer(TrainingLoop, ReinforceUpdate, Episodes, Checkpointing):
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
        drawn = (
            team_kwargs(spec.environment.name, spec.agents, spec.edges) if spec.agents else {}
        )  # the canvas's team
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


def build_trainer(
    team: Any,
    out_dir: Any,
    *,
    events: Any = None,
    backbone: Any = None,
    human_feedback: Any = None,
    group: distributed.Group = distributed.SINGLE,
    overrides: dict[str, Any] | None = None,
) -> ReinforceCommTrainer:
    """reinforce_comm's builder (training.algorithms): the spec's trainer, `overrides` winning over the
    spec's hyper-parameters. Its checkpoints go where `run` is told, so `out_dir` is not kept; it reports
    on the stream `run` is given, so `events` is not kept either; its reward has no human-feedback term,
    so `human_feedback` is not read."""
    return ReinforceCommTrainer(team, backbone=backbone, group=group, **dict(overrides or {}))
