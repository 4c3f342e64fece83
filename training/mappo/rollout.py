"""The rollout part of `MappoTrainer`: playing episodes with the current team (acting, the teacher's
corrections, rewards through the reward composer, messages over the HCP link) and stacking a training
update's episodes into one `Batch`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import torch

from training import distributed
from training.mappo.policy import hear_step, valid_action_mask


@dataclass
class Batch:
    """One update's experience: T steps (from whole episodes) × N agents."""

    obs: torch.Tensor  # [T, N, D]
    state: torch.Tensor  # [T, S]
    present: torch.Tensor  # [T, N] bool
    valid: torch.Tensor  # [T, N, A_max] bool: actions the env allowed
    actions: torch.Tensor  # [T, N] long
    logp: torch.Tensor  # [T, N]
    noise: torch.Tensor  # [T, N, N]
    beta: torch.Tensor  # [T]
    rewards: torch.Tensor  # [T, N]
    dones: torch.Tensor  # [T]
    teacher_actions: torch.Tensor  # [T, N] long, −1 where no teacher sample
    heard: torch.Tensor | None = None  # [T, N, D] observations as the HCP link delivered them

    @classmethod
    def from_steps(cls, steps: list[Step], with_heard: bool) -> Batch:
        """Stack the recorded steps of an update's episodes, field by field (`heard` only with a link)."""

        def stacked(name: str) -> torch.Tensor:
            return torch.stack([getattr(step, name) for step in steps])

        return cls(
            obs=stacked("obs"),
            state=stacked("state"),
            present=stacked("present"),
            valid=stacked("valid"),
            actions=stacked("actions"),
            logp=stacked("logp"),
            noise=stacked("noise"),
            beta=torch.tensor([step.beta for step in steps], dtype=torch.float32),
            rewards=stacked("rewards"),
            dones=torch.tensor([step.done for step in steps]),
            teacher_actions=stacked("teacher_actions"),
            heard=stacked("heard") if with_heard else None,
        )


class Step(NamedTuple):
    """One recorded step of a training episode; `Batch.from_steps` stacks them by field name."""

    obs: torch.Tensor  # [N, D]
    state: torch.Tensor  # [S]
    present: torch.Tensor  # [N] bool
    valid: torch.Tensor  # [N, A_max] bool
    actions: torch.Tensor  # [N] long
    logp: torch.Tensor  # [N]
    noise: torch.Tensor  # [N, N]
    beta: float
    rewards: torch.Tensor  # [N]
    done: float
    teacher_actions: torch.Tensor  # [N] long, −1 where no teacher sample
    heard: torch.Tensor | None  # [N, D] or None without a link


@dataclass
class EpisodeResult:
    """What one episode produced, for metrics."""

    ret: float
    steps: int
    messages: float
    info: dict[str, Any] = field(default_factory=dict)


class Rollouts:
    """Mixed into `MappoTrainer`; reads its env, featurizer, actor, link, teacher, reward function,
    curriculum, group and sampling streams."""

    def _beta(self) -> float:
        frac = min(1.0, self.update_index / max(1, self.cfg.updates - 1))
        return self.cfg.beta_start + frac * (self.cfg.beta_end - self.cfg.beta_start)

    def run_episode(
        self,
        greedy: bool = False,
        explore: bool = False,
        seed: int | None = None,
        options: dict | None = None,
        record: list[Step] | None = None,
    ) -> EpisodeResult:
        """Play one episode; append per-step records to `record` when training."""
        env = self.env
        obs, infos = env.reset(seed=seed, options=options)
        ret, steps, messages = 0.0, 0, 0.0
        last_info: dict[str, Any] = {}
        beta = self._beta() if explore else 0.0
        while env.agents:
            present = torch.tensor([a in env.agents and obs.get(a) is not None for a in self.agents])
            o = self.featurize([obs.get(a) if a in env.agents else None for a in self.agents], self.obs_dim)
            s = self.featurize_state(env.state())
            valid = self.valid_actions(obs)
            noise = torch.randn(self.n, self.n) if explore else torch.zeros(self.n, self.n)
            heard = self.hear(o, present, obs)
            with torch.no_grad():
                logits, alpha = self.actor(
                    o.unsqueeze(0),
                    noise.unsqueeze(0) if explore else None,
                    beta,
                    present.unsqueeze(0),
                    valid.unsqueeze(0),
                    None if heard is None else heard.unsqueeze(0),
                )
                dist = torch.distributions.Categorical(logits=logits[0])
                act = logits[0].argmax(-1) if greedy else dist.sample()
                logp = dist.log_prob(act)
            actions = {a: int(act[i]) for i, a in enumerate(self.agents) if present[i]}
            teacher_actions = torch.full((self.n,), -1, dtype=torch.long)
            if record is not None and self.teacher is not None and self.teacher_weight() > 0:
                for i, a in enumerate(self.agents):
                    if present[i]:
                        t_act = self.teacher(
                            a, obs.get(a), infos.get(a, {}) if isinstance(infos, dict) else {}
                        )
                        if t_act is not None and int(t_act) != actions[a]:
                            teacher_actions[i] = int(t_act)
            delivered = 0.0
            if alpha is not None:
                delivered = float(
                    (
                        (alpha[0] >= self.delivery_threshold) & present.unsqueeze(0) & present.unsqueeze(1)
                    ).sum()
                )
            obs, rewards, terms, truncs, infos = env.step(actions)
            info_any = next(iter(infos.values()), {}) if infos else {}
            step_messages = info_any.get("messages_step", None)
            messages += float(step_messages) if step_messages is not None else delivered
            done = not env.agents or all(terms.get(a, False) or truncs.get(a, False) for a in actions)
            r = torch.zeros(self.n)
            entropy = dist.entropy()
            for i, a in enumerate(self.agents):
                if a in rewards:
                    base = float(rewards[a])
                    if self.reward_fn is not None:
                        # what the reward composer may weigh besides the env reward (see run_spec)
                        extras = {
                            "delivered": delivered,
                            "entropy": float(entropy[i]),
                            "done": done,
                            "episode_key": f"{self.episode_prefix}{self.episodes_done}",
                        }
                        base = self.reward_fn(a, base, infos.get(a, {}), extras)
                    r[i] = base
            if record is not None:
                record.append(
                    Step(
                        obs=o,
                        state=s,
                        present=present,
                        valid=valid,
                        actions=act,
                        logp=logp,
                        noise=noise,
                        beta=beta,
                        rewards=r,
                        done=float(done),
                        teacher_actions=teacher_actions,
                        heard=heard,
                    )
                )
            ret += float(r[present].mean()) if present.any() else 0.0
            steps += 1
            if infos:
                last_info = dict(info_any)
            if done:
                break
        if "messages" in last_info and isinstance(last_info["messages"], (int, float)):
            messages = float(last_info["messages"])
        return EpisodeResult(ret, steps, messages, last_info)

    def hear(
        self, o: torch.Tensor, present: torch.Tensor, observations: Mapping[str, Any]
    ) -> torch.Tensor | None:
        """One step's observations [N, D] as the other agents receive them over the HCP link (None
        without one): each present agent that may be heard sends its observation as one frame."""
        return hear_step(self.link, self.actor, self.agents, o, present, observations)

    def valid_actions(self, observations: Mapping[str, Any]) -> torch.Tensor:
        """[N, A_max] bool from each agent's `action_mask` observation field (all valid when absent)."""
        return valid_action_mask(self.agents, self.actor.max_actions, observations)

    def featurize_state(self, state: Any) -> torch.Tensor:
        if isinstance(state, torch.Tensor):
            return state.float().flatten()
        return self.featurize([state], getattr(self, "state_dim", None))[0]

    def collect(self) -> tuple[Batch, list[EpisodeResult]]:
        """Play `episodes_per_update` training episodes with the current policy."""
        record: list[Step] = []
        results = []
        # episodes are numbered over the group: rank r plays numbers base + r·E … base + r·E + E − 1
        per, base = self.cfg.episodes_per_update, self.episodes_done
        outcomes: list[float] = []
        for k in range(per):
            self.episodes_done = base + self.group.rank * per + k
            explore = bool(self.cfg.comm) and self.rng.random() < self.cfg.explore_share
            options = self.episode_options()
            results.append(
                self.run_episode(
                    explore=explore, seed=self.rng.randrange(2**31), options=options, record=record
                )
            )
            if self.curriculum is not None and self.success_fn is not None:
                success = bool(self.success_fn(results[-1].info))
                if self.group.active:
                    outcomes.append(float(success))
                else:
                    self.curriculum.record(success)
        self.episodes_done = base + per * self.group.world_size
        if self.group.active and self.curriculum is not None and self.success_fn is not None:
            # every rank's curriculum hears every rank's outcomes, in rank order: one level for the group
            for rank_outcomes in distributed.gather_lists(self.group, outcomes):
                for success in rank_outcomes:
                    self.curriculum.record(bool(success))
        batch = Batch.from_steps(record, with_heard=self.link is not None)
        return batch, results

    def episode_options(self) -> dict | None:
        """Reset options for a training episode (the curriculum's difficulty level, when one is attached)."""
        if self.curriculum is not None:
            return {"difficulty": self.curriculum.level}
        return None
