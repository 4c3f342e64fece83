"""`MappoTrainer`: the PPO update with its optional extensions (teacher, self-imitation, counterfactual
credit), evaluation, the training loop; rollouts on a PettingZoo `ParallelEnv` are `rollout.Rollouts`."""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.spec.algorithms import has_centralised_critic
from training import distributed
from training.events import EventStream
from training.mappo import checkpoint, learning_aids
from training.mappo.clone_anchor import anchor_for, anchor_kl
from training.mappo.config import MappoConfig
from training.mappo.data_parallel import DataParallel
from training.mappo.featurizer import Featurizer
from training.mappo.losses import (
    ValueNorm,
    compute_gae,
    counterfactual_advantage,
    explained_variance,
    ppo_clip_loss,
)
from training.mappo.networks import CentralCritic, CounterfactualCritic, IndependentCritic, TeamActor
from training.mappo.policy import TeamPolicy, action_count
from training.mappo.rollout import Batch, EpisodeResult, Rollouts
from training.mappo.team import MappoTeam
from training.replay import DualReplay, ReplayConfig
from training.self_imitation import remember
from training.trainer import TrainingError, TrainResult

__all__ = ["Batch", "EpisodeResult", "MappoTeam", "MappoTrainer"]


class MappoTrainer(Rollouts):
    """Trains a team (`MappoTeam`: its environment, reward, teacher and companions) on a PettingZoo
    ParallelEnv with MAPPO or independent PPO, as `config` says.

    With a `team.group` this trainer is one data-parallel rank: it plays its own episodes (streams seeded
    `seed + rank`), averages every gradient over the ranks before each optimiser step and reports group
    means; rank 0 alone evaluates and checkpoints. A single process (the default) is today's trainer,
    bit for bit.
    """

    def __init__(self, config: MappoConfig, team: MappoTeam):
        self.cfg = config
        self.team = team
        self.group = team.group if team.group is not None else distributed.SINGLE
        self.parallel = DataParallel(self.group)
        torch.manual_seed(self.cfg.seed)  # the same networks on every rank (rank 0's are broadcast anyway)
        stream = distributed.rank_seed(self.cfg.seed, self.group)  # each rank plays its own episodes
        self.rng = random.Random(stream)
        self.np_rng = np.random.default_rng(stream)
        self.env_fn = team.env_fn
        self.env = team.env_fn("train")
        self.events = team.events or EventStream()
        self.reward_fn = team.reward_fn
        self.teacher = team.teacher
        self.success_fn = team.success_fn
        self.delivery_threshold = team.delivery_threshold
        self.update_periods = dict(team.update_periods or {})
        self.scheduler, self.golden, self.curriculum = team.scheduler, team.golden, team.curriculum
        replay = team.replay
        if replay is None and self.cfg.self_imitation > 0:
            capacity = self.cfg.replay_capacity
            replay = DualReplay(
                ReplayConfig(recent_capacity=capacity, elite_capacity=max(1, capacity // 4)),
                seed=stream,
            )
        self.replay = replay
        self.featurize = team.featurizer or Featurizer(team.backbone)
        self.agents = list(self.env.possible_agents)
        self.n = len(self.agents)
        self.n_actions = [action_count(self.env.action_space(a)) for a in self.agents]

        # probe the dimensions with one reset
        obs, _ = self.env.reset(seed=self.cfg.seed)
        self.obs_dim = self.featurize([obs.get(a) for a in self.agents]).shape[1]
        self.state_dim = self.featurize([self.env.state()]).shape[1]
        self.actor = TeamActor(
            self.n,
            self.obs_dim,
            self.n_actions,
            self.cfg,
            team.allowed_links,
            clause_block=getattr(self.featurize, "clause_block", None),
        )
        if self.cfg.reader_fixed and self.actor.reader is not None:
            self.actor.reader.requires_grad_(False)  # only `pretrain_reader` fits it
        if has_centralised_critic(self.cfg.algorithm):
            obs_dim = self.obs_dim if self.cfg.critic_input == "state_and_obs" else 0
            self.critic: nn.Module = CentralCritic(self.state_dim, self.n, self.cfg.hidden, obs_dim)
        else:
            self.critic = IndependentCritic(self.obs_dim, self.n, self.cfg.hidden)
        self.q_critic = (
            CounterfactualCritic(self.state_dim, self.n, self.actor.max_actions, self.cfg.hidden)
            if self.cfg.counterfactual
            else None
        )
        from agents.protocol.link import make_link

        # communication.protocol = "hcp": every message crosses a semantically compressed link
        self.link = make_link(
            self.cfg.protocol if self.actor.use_comm else None, self.events, self.agents, seed=self.cfg.seed
        )
        self.value_norm = ValueNorm((self.n,)) if self.cfg.value_norm else None
        self.q_norm = ValueNorm(()) if (self.cfg.value_norm and self.q_critic is not None) else None
        critics = list(self.critic.parameters())
        if self.q_critic is not None:
            critics += list(self.q_critic.parameters())
        actors = list(self.actor.parameters())
        # one group unless the actors step slower (`actor_lr_scale`): a checkpoint's optimiser keeps its shape
        groups: list[dict[str, Any]] = (
            [{"params": actors + critics}]
            if self.cfg.actor_lr_scale == 1
            else [{"params": actors, "lr": self.cfg.lr * self.cfg.actor_lr_scale}, {"params": critics}]
        )
        self.optimizer = torch.optim.Adam(groups, lr=self.cfg.lr, eps=1e-5)
        self.clone_anchor: nn.Module | None = None  # `clone_kl`: the actors as the run started, frozen
        self.update_index = 0
        self.episodes_done = 0
        self.episode_prefix = "episode/"  # human-feedback keys are f"{episode_prefix}{episode number}"
        self.train_seconds = 0.0
        self.best_score: float | None = None
        self.history: list[dict[str, Any]] = []
        self._last_update_time: float | None = None
        self._resume_from: Path | None = None  # `resume` found it; `run` continues from it
        self.outcome: dict[str, Any] = {}  # the last `run`'s record: status, metrics, train_seconds

    # ---- learning (acting and rollouts: training.mappo.rollout) -----------------------------------------
    def _values(self, obs: torch.Tensor, state: torch.Tensor) -> torch.Tensor:
        v = self.critic(state, obs)
        return self.value_norm.denormalize(v) if self.value_norm is not None else v

    def advantages(self, b: Batch) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """(advantages [T, N], value targets [T, N], Q targets [T, N] or None)."""
        with torch.no_grad():
            values = self._values(b.obs, b.state)
            adv, returns = compute_gae(b.rewards, values, b.dones, self.cfg.gamma, self.cfg.gae_lambda)
            q_targets = None
            if self.q_critic is not None:
                q = self.q_critic(b.state, b.actions, b.present)
                if self.q_norm is not None:
                    q = self.q_norm.denormalize(q)
                logits, _ = self.actor(b.obs, b.noise, b.beta, b.present, b.valid, b.heard)
                probs = torch.softmax(logits, -1)
                # Q is regressed to the same λ-returns the value critic learns from; its counterfactual
                # baseline replaces V as the reference point of each agent's action.
                adv = counterfactual_advantage(q, probs, b.actions)
                q_targets = returns
        return adv, returns, q_targets

    def update(self, b: Batch) -> dict[str, float]:
        """PPO epochs over minibatches of the batch (then self-imitation); returns loss statistics.

        The loss is PPO's: clipped policy loss + value_coef · clipped value loss − entropy_coef · entropy.
        The optional terms are named hooks, each off unless its feature is on: `_q_critic_loss`
        (counterfactual credit), `_teacher_loss` (cloning the teacher's corrections), `anchor_kl` (the
        start's anchor, `clone_kl`); `_updating_agents` holds agents outside their update period (and
        every actor in the critic's warm-up) where they are.
        """
        adv, returns, q_targets = self.advantages(b)
        mask = b.present
        teacher_weight = self.teacher_weight()
        flat = adv[mask]
        adv_n = (adv - flat.mean()) / (flat.std() + 1e-8) if flat.numel() > 1 else adv
        with torch.no_grad():  # before the value statistics move: the critic's prediction of these returns
            critic_fit = explained_variance(self._values(b.obs, b.state)[mask], returns[mask])
        targets_n, q_targets_n = self._normalised_targets(returns, q_targets, mask)
        with torch.no_grad():
            old_v = self.critic(b.state, b.obs)
        updating = self._updating_agents()
        T = b.obs.shape[0]
        losses = ("policy_loss", "value_loss", "entropy", "clip_frac", "teacher_loss", "clone_kl")
        stats: dict[str, list[float]] = {name: [] for name in losses}
        self.parallel.check_step_count(self._planned_optimiser_steps(T))
        for _ in range(self.cfg.epochs):
            for idx in self.parallel.minibatches(torch.randperm(T), self.cfg.minibatches):
                m = mask[idx] & updating
                heard = b.heard[idx] if b.heard is not None else None
                inputs = (b.obs[idx], b.noise[idx], b.beta[idx], b.present[idx], b.valid[idx], heard)
                logits, _ = self.actor(*inputs)
                dist = torch.distributions.Categorical(logits=logits)
                new_logp = dist.log_prob(b.actions[idx])
                pl = ppo_clip_loss(new_logp, b.logp[idx], adv_n[idx], self.cfg.clip, m)
                ent = (dist.entropy() * m).sum() / m.sum().clamp(min=1)
                vl = self._value_loss(b, idx, targets_n, old_v)
                loss = pl + self.cfg.value_coef * vl - self.cfg.entropy_coef * ent
                if self.q_critic is not None:
                    loss = loss + self.cfg.value_coef * self._q_critic_loss(b, idx, q_targets_n)
                tl = self._teacher_loss(logits, b.teacher_actions[idx], m, teacher_weight)
                if tl is not None:
                    loss = loss + teacher_weight * tl
                kl = None if self.clone_anchor is None else anchor_kl(self.clone_anchor, inputs, logits, m)
                if kl is not None:  # every present step, not only the teacher's corrections
                    loss = loss + self.cfg.clone_kl * kl
                self._optimiser_step(loss, updating)
                with torch.no_grad():
                    clipped = ((new_logp - b.logp[idx]).abs() > math.log(1 + self.cfg.clip)) & m
                stats["policy_loss"].append(float(pl.detach()))
                stats["value_loss"].append(float(vl.detach()))
                stats["entropy"].append(float(ent.detach()))
                stats["clip_frac"].append(float(clipped.float().sum() / m.sum().clamp(min=1)))
                stats["teacher_loss"].append(float(tl.detach()) if tl is not None else 0.0)
                stats["clone_kl"].append(float(kl.detach()) if kl is not None else 0.0)
        if self.cfg.self_imitation > 0 and self.replay is not None and len(self.replay):
            stats |= self._self_imitation(updating)
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        out["explained_variance"] = critic_fit
        out |= self._sample_shares(b, adv, teacher_weight)
        out["updating_agents"] = float(updating.sum())
        return out

    # ---- the update's hooks -------------------------------------------------------------------------
    def _normalised_targets(
        self, returns: torch.Tensor, q_targets: torch.Tensor | None, mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Fold this batch's returns into the value statistics (averaged over a group) and give the value
        and Q targets in the normalised units the critics predict (unchanged without `value_norm`)."""
        if self.value_norm is not None:
            self.value_norm.update(returns, mask)
        if self.q_norm is not None:
            self.q_norm.update(q_targets[mask])
        self.parallel.average_statistics((self.value_norm, self.q_norm))
        targets_n = self.value_norm.normalize(returns) if self.value_norm is not None else returns
        if self.q_norm is not None and q_targets is not None:
            return targets_n, self.q_norm.normalize(q_targets)
        return targets_n, q_targets

    def _updating_agents(self) -> torch.Tensor:
        """[N] bool: the agents whose actors learn this update — those whose update period comes round,
        none during the critic's warm-up (advantages of an unfitted critic are noise)."""
        updating = torch.tensor(
            [self.update_index % int(self.update_periods.get(a, 1)) == 0 for a in self.agents]
        )
        if self.update_index < self.cfg.critic_warmup_updates:
            updating = torch.zeros_like(updating)
        return updating

    def _value_loss(
        self, b: Batch, idx: torch.Tensor, targets_n: torch.Tensor, old_v: torch.Tensor
    ) -> torch.Tensor:
        """The critic's squared error on a minibatch over present agents, clipped around the values before
        this update when `value_clip` is set (the larger of the two errors counts)."""
        v = self.critic(b.state[idx], b.obs[idx])
        v_loss = (v - targets_n[idx]) ** 2
        if self.cfg.value_clip is not None:
            v_clipped = old_v[idx] + (v - old_v[idx]).clamp(-self.cfg.value_clip, self.cfg.value_clip)
            v_loss = torch.maximum(v_loss, (v_clipped - targets_n[idx]) ** 2)
        present = b.present[idx].float()
        return (v_loss * present).sum() / present.sum().clamp(min=1)

    def _q_critic_loss(self, b: Batch, idx: torch.Tensor, q_targets_n: torch.Tensor) -> torch.Tensor:
        """Counterfactual credit: the Q-critic's squared error on the taken joint action, over present agents."""
        q = self.q_critic(b.state[idx], b.actions[idx], b.present[idx])
        q_taken = q.gather(-1, b.actions[idx].unsqueeze(-1)).squeeze(-1)
        present = b.present[idx].float()
        return ((q_taken - q_targets_n[idx]) ** 2 * present).sum() / present.sum().clamp(min=1)

    def _teacher_loss(
        self, logits: torch.Tensor, teacher_actions: torch.Tensor, learning: torch.Tensor, weight: float
    ) -> torch.Tensor | None:
        """Behaviour cloning of the teacher's corrections (−log π(teacher action)) where a learning agent
        got one; None when the teacher is off or faded out, or the minibatch holds no correction."""
        taught = (teacher_actions >= 0) & learning
        if weight <= 0 or not taught.any():
            return None
        log_probs = torch.log_softmax(logits, -1).gather(-1, teacher_actions.clamp(min=0).unsqueeze(-1))
        return -(log_probs.squeeze(-1) * taught).sum() / taught.sum()

    def teacher_weight(self) -> float:
        """The teacher's weight this update (0 without a teacher): `learning_aids.teacher_weight`."""
        return learning_aids.teacher_weight(self.cfg, self.update_index) if self.teacher is not None else 0.0

    def _self_imitation(self, updating: torch.Tensor) -> dict[str, list[float]]:
        """After the PPO epochs, imitate replayed steps whose return beat the critic (`self_imitation` > 0)."""
        return learning_aids.self_imitate(
            self.cfg,
            self.replay,
            self.actor,
            self.critic,
            self.value_norm,
            updating,
            lambda loss: self._optimiser_step(loss, updating),
        )

    def _optimiser_step(self, loss: torch.Tensor, updating: torch.Tensor) -> None:
        """One optimiser step on `loss`: resting agents keep their parameters, a group averages the
        gradients, the global norm is clipped to `grad_clip`."""
        parameters = [p for g in self.optimizer.param_groups for p in g["params"]]
        self.optimizer.zero_grad()
        loss.backward()
        self._freeze_resting_agents(updating)
        self.parallel.average_gradients(parameters)
        nn.utils.clip_grad_norm_(parameters, self.cfg.grad_clip)
        self.optimizer.step()

    def _planned_optimiser_steps(self, steps: int) -> int:
        """The optimiser steps this update takes on a batch of `steps` steps (the ranks of a group must agree)."""
        planned = self.cfg.epochs * min(steps, self.cfg.minibatches)
        if self.cfg.self_imitation > 0 and self.replay is not None and len(self.replay):
            planned += self.cfg.sil_minibatches
        return planned

    def _sample_shares(self, b: Batch, adv: torch.Tensor, teacher_weight: float) -> dict[str, float]:
        """How much of the batch was worth learning from: student steps whose advantage beat `useful_eps`,
        and the teacher's corrections (each useful by construction: a correction the student needed)."""
        mask = b.present
        useful_student = float(((adv > self.cfg.useful_eps) & mask).sum())
        n_student = float(mask.sum())
        n_teacher = float(((b.teacher_actions >= 0) & mask).sum()) if teacher_weight > 0 else 0.0
        return {
            "useful_share_student": useful_student / max(n_student, 1.0),
            "useful_share": (useful_student + n_teacher) / max(n_student + n_teacher, 1.0),
            "teacher_samples": n_teacher,
        }

    def _freeze_resting_agents(self, updating: torch.Tensor) -> None:
        """Agents outside their update period keep their own parameters this update (docs/design.md#update-periods)."""
        if bool(updating.all()):
            return
        for i in range(self.n):
            if not updating[i]:
                for p, j in self.actor.agent_parameters(i):
                    if p.grad is not None:
                        p.grad[j] = 0.0

    # ---- evaluation ---------------------------------------------------------------------------------
    def evaluate(self, split: str = "validation", episodes: int | None = None, seed: int = 10_000) -> dict:
        """Greedy episodes on `split`; mean return, steps, messages and the env's own metrics."""
        env_train = self.env
        self.env = self.env_fn(split)
        try:
            n = episodes or self.cfg.eval_episodes
            res = []
            with self.events.stage("evaluation", f"Evaluating on {split} episodes", n, "episodes") as playing:
                for k in range(n):
                    res.append(self.run_episode(greedy=True, seed=seed + k))
                    playing.advance()
        finally:
            played, self.env = self.env, env_train
        summary = getattr(played, "allocation_summary", None)
        if callable(summary) and self.group.is_main:  # a large team: who got the last episode's tasks
            self.events.emit("allocation", step=self.episodes_done, split=split, **summary())
        out = {
            "return": float(np.mean([r.ret for r in res])),
            "steps": float(np.mean([r.steps for r in res])),
            "messages": float(np.mean([r.messages for r in res])),
        }
        if self.success_fn is not None:
            out["success"] = float(np.mean([float(self.success_fn(r.info)) for r in res]))
        return out

    def policy(self, greedy: bool = True) -> Callable[[Mapping[str, Any]], dict[str, int]]:
        """The trained team as a plain function: {agent: observation} -> {agent: action} (for runtimes)."""
        return TeamPolicy.from_trainer(self).policy(greedy)

    def act_probs(self, observations: Sequence[Any]) -> torch.Tensor:
        """Each agent's action distribution [N, A_max] for one joint observation (for diversity, probes)."""
        o = self.featurize(list(observations), self.obs_dim)
        with torch.no_grad():
            logits, _ = self.actor(o.unsqueeze(0))
        return torch.softmax(logits[0], -1)

    # ---- the loop -----------------------------------------------------------------------------------
    def train(
        self,
        should_stop: Callable[[], bool] = lambda: False,
        checkpoint_dir: str | Path | None = None,
        resume_from: str | Path | None = None,
        progress: Callable[[int, dict], None] | None = None,
        before_finish: Callable[[str], Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Run the updates; emits started / progress / metrics / phase / plateau / checkpoint / finished events.

        Stops early (with a checkpoint, status "cancelled") when `should_stop()` returns True.
        `before_finish(status)` runs after the last checkpoint and before "finished" (work that is still
        part of the run, e.g. calibration); the metrics it returns join the final ones.
        """
        resumed = None
        if resume_from is not None:
            resumed = self.load_checkpoint(resume_from)
        self._start_together(resumed)
        if resumed is None:  # a fresh run anchors to its start (the clone); a resumed one restored its anchor
            self.clone_anchor = anchor_for(self)
        if not self.group.is_main:
            checkpoint_dir = None  # rank 0 alone writes checkpoints
        self.events.emit(
            "started",
            resumed_from=resumed,
            algorithm=self.cfg.algorithm,
            counterfactual=self.cfg.counterfactual,
            sharing=self.cfg.sharing,
            agents=self.agents,
        )
        status = "succeeded"
        last_metrics: dict[str, Any] = {}
        if resumed is None and self.cfg.eval_every and self.group.is_main and checkpoint_dir is not None:
            # the starting policy (the warm start, when there is one) is the first `best` candidate: when
            # reinforcement learning makes a seed worse on held-out episodes, the run serves its start
            self._validate({"step": 0, "episode": self.episodes_done}, checkpoint_dir)
        for phase, label, first, end in self._update_stages():
            if self.update_index >= end or status != "succeeded":
                continue
            per = self.cfg.episodes_per_update * self.group.world_size
            done = (self.update_index - first) * per
            with self.events.stage(phase, label, (end - first) * per, "episodes", done) as stage:
                while self.update_index < end:
                    if self.parallel.stop_requested(should_stop):
                        status = "cancelled"
                        break
                    last_metrics = self._train_update(checkpoint_dir, progress)
                    stage.advance(per)
        if checkpoint_dir is not None:
            self.save_checkpoint(Path(checkpoint_dir) / "last", last_metrics)
        if before_finish is not None:
            last_metrics = {**last_metrics, **before_finish(status)}
        self.events.emit("finished", status=status, metrics=last_metrics)
        return {"status": status, "metrics": last_metrics, "train_seconds": self.train_seconds}

    # ---- the Trainer interface (training.trainer.Trainer), what training.api.train drives -----------------
    @property
    def episode(self) -> int:
        """Episodes played so far (the interface's name for `episodes_done`)."""
        return self.episodes_done

    def resume(self, checkpoints: str | Path | None) -> int | None:
        """Make `run` continue from `checkpoints/mappo/last` when there is one (None: start afresh); returns
        its episode, or None. Every rank of a group answers what rank 0 found."""
        state = Path(checkpoints) / "mappo" / "last" / "state.json" if checkpoints is not None else None
        found = None
        if state is not None and state.is_file():
            found = int(json.loads(state.read_text()).get("episodes_done", 0))
        found = distributed.rank0_choice(self.group, found)
        self._resume_from = state.parent if found is not None and state is not None else None
        return found

    def run(
        self,
        events: EventStream,
        should_stop: Callable[[], bool] = lambda: False,
        checkpoint_root: str | Path | None = None,
        episodes: int | None = None,
        resumed_from: int | None = None,
        progress: Callable[[int, dict], None] | None = None,
    ) -> TrainResult:
        """Train, with the team's lifecycle hooks (`MappoTeam`: fresh start, watch, before finish), into
        `checkpoint_root/mappo/{last,best}` (None: no checkpoints). The budget is the config's, from the
        spec's `training.episodes`; `events` must be the stream the trainer was built with."""
        if events is not self.events:
            raise TrainingError("a MAPPO trainer reports on the event stream it was built with")
        if episodes is not None:
            raise TrainingError("a MAPPO run's budget is its spec's training.episodes")
        hooks = self.team
        if self._resume_from is None and hooks.fresh_start is not None:
            hooks.fresh_start(self)
        if hooks.watch is not None:
            progress = hooks.watch(self, progress)
        finish = hooks.before_finish
        self.outcome = self.train(
            should_stop,
            checkpoint_dir=Path(checkpoint_root) / "mappo" if checkpoint_root is not None else None,
            resume_from=self._resume_from,
            progress=progress,
            before_finish=(lambda status: finish(self, status)) if finish is not None else None,
        )
        metrics = {k: v for k, v in self.outcome["metrics"].items() if isinstance(v, (int, float))}
        return TrainResult(
            self.outcome["status"], self.episodes_done, self.update_index, self.train_seconds, metrics, None
        )

    def _start_together(self, resumed: int | None) -> None:
        """Every rank of a group starts from rank 0's networks (its warm start, or the checkpoint all resumed
        from), with sampling streams of its own: `seed + rank` on a fresh run, `(seed, rank, update)` for
        the ranks other than 0 after a resume (rank 0 continues the streams its checkpoint saved)."""
        g = self.group
        if not g.active:
            return
        self.parallel.broadcast((self.actor, self.critic, self.q_critic, self.value_norm, self.q_norm))
        if resumed is None:
            torch.manual_seed(distributed.rank_seed(self.cfg.seed, g))
        elif g.rank:
            fresh = distributed.resume_seed(self.cfg.seed, g, self.update_index)
            self.rng, self.np_rng = random.Random(fresh), np.random.default_rng(fresh)
            torch.manual_seed(fresh)

    def _update_stages(self) -> list[tuple[str, str, int, int]]:
        """(phase, label, first update, end update) of the run's stages: the critic's warm-up (actors
        held), then the PPO updates."""
        warmup = min(self.cfg.critic_warmup_updates, self.cfg.updates)
        stages = [("critic_warmup", "Warming up the critic", 0, warmup)] if warmup else []
        return stages + [("training", "Training (PPO updates)", warmup, self.cfg.updates)]

    def _train_update(
        self, checkpoint_dir: str | Path | None, progress: Callable[[int, dict], None] | None
    ) -> dict[str, Any]:
        """One update: collect, learn, report its metrics, validate and checkpoint when due."""
        t0 = time.perf_counter()
        batch, results = self.collect()
        if self.replay is not None:
            remember(self.replay, batch, [r.ret for r in results], self.cfg.gamma)
        stats = self.update(batch)
        elapsed = time.perf_counter() - t0
        self.train_seconds += elapsed
        self.update_index += 1
        metrics = {
            "step": self.update_index,
            "episode": self.episodes_done,
            "return": float(np.mean([r.ret for r in results])),
            "steps_per_episode": float(np.mean([r.steps for r in results])),
            "messages_per_episode": float(np.mean([r.messages for r in results])),
            "update_seconds": elapsed,
            **stats,
            **(self.link.metrics() if self.link is not None else {}),
        }
        if self.success_fn is not None:
            metrics["success"] = float(np.mean([float(self.success_fn(r.info)) for r in results]))
        if self.scheduler is not None:
            metrics["phase"] = self.scheduler.phase
        if self.curriculum is not None:
            metrics["curriculum_level"] = self.curriculum.level
        metrics = self.parallel.group_metrics(metrics, self.cfg.episodes_per_update, elapsed)
        self._golden(elapsed, batch)
        # a group evaluates on rank 0 alone (the others go on to their next rollouts and wait for it
        # in the next update's first collective): the scores and the `best` checkpoint are rank 0's
        if self.cfg.eval_every and self.update_index % self.cfg.eval_every == 0 and self.group.is_main:
            self._validate(metrics, checkpoint_dir)
        self.events.emit("metrics", **metrics)
        self.history.append(metrics)
        if self.scheduler is not None and self.update_index % self.cfg.cycle_updates == 0:
            cycle = self.history[-self.cfg.cycle_updates :]
            key = "success" if "success" in metrics else "return"
            self.scheduler.end_cycle({a: float(np.mean([m[key] for m in cycle])) for a in self.agents})
        if (
            checkpoint_dir is not None
            and self.cfg.checkpoint_every
            and (self.update_index % self.cfg.checkpoint_every == 0)
        ):
            self.save_checkpoint(Path(checkpoint_dir) / "last", metrics)
        if progress is not None:
            progress(self.update_index, metrics)
        return metrics

    def _validate(self, metrics: dict[str, Any], checkpoint_dir: str | Path | None) -> None:
        """Add the validation scores to `metrics`; a new best score saves the `best` checkpoint."""
        val = self.evaluate("validation")
        metrics.update({f"val_{k}": v for k, v in val.items()})
        score = val.get("success", val["return"])
        if self.best_score is None or score > self.best_score:
            self.best_score = score
            if checkpoint_dir is not None:
                self.save_checkpoint(Path(checkpoint_dir) / "best", metrics)

    def _golden(self, update_seconds: float, batch: Batch) -> None:
        if self.golden is None:
            return
        now = time.monotonic()
        if self._last_update_time is not None:
            self.golden.observe(
                "policy_update_interval_h", now - self._last_update_time, step=self.update_index
            )
        self._last_update_time = now
        steps = max(1, batch.obs.shape[0])
        self.golden.observe(
            "inter_agent_latency_ms", 1000.0 * update_seconds / steps / max(1, self.n), step=self.update_index
        )
        if self.replay is not None:
            self.golden.observe("replay_buffer_size", len(self.replay), step=self.update_index)
        if self.scheduler is not None:
            self.golden.observe("phase_duration_h", self.scheduler.phase_elapsed(), step=self.update_index)
        from training.golden import diversity_index

        probe = batch.obs[: min(16, steps)]
        with torch.no_grad():
            logits, _ = self.actor(
                probe, None, 0.0, batch.present[: probe.shape[0]], batch.valid[: probe.shape[0]]
            )
        probs = torch.softmax(logits, -1)  # [P, N, A]
        vectors = [probs[:, i].flatten().tolist() for i in range(self.n)]
        self.golden.observe("agent_diversity_index", diversity_index(vectors), step=self.update_index)
        self.golden.report(self.update_index, self.episodes_done)

    # ---- checkpoints (safetensors + JSON, never pickle): training.mappo.checkpoint ------------------
    def save_checkpoint(self, directory: str | Path, metrics: Mapping[str, Any] | None = None) -> Path:
        """Write `model.safetensors` + `state.json` into `directory`; emits a "checkpoint" event."""
        return checkpoint.save(self, directory, metrics)

    def load_checkpoint(self, directory: str | Path) -> int:
        """Restore networks, optimiser and schedule from `save_checkpoint`; returns the update index."""
        return checkpoint.load(self, directory)
