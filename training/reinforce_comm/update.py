"""One REINFORCE-with-baseline update on a batch of one-step episodes (docs/design.md#reinforce-communication).

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

`ReinforceUpdate` is the part of `ReinforceCommTrainer` that holds this step and its schedules (the
attention's warm-up, the exploration scale β, the entropy floor, paraphrase consistency). It reads and
advances the trainer's `policy`, `optimizer`, `generator`, `reward`, `evolution`, `baseline_value`,
`success_ema`, `attention_started_at`, `episode` and `update_index`.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from agents.comm import attention_entropy, communication_cost, consensus_score, novelty_score
from training import distributed


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


class ReinforceUpdate:
    """The update step and its schedules (a part of `ReinforceCommTrainer`)."""

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
