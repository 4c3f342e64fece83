"""The learning aids of `MappoTrainer` beside the PPO loss: the teacher's fading weight and
self-imitation of replayed steps whose return beat the critic (`training.self_imitation`)."""

from __future__ import annotations

import torch

from training.self_imitation import self_imitation_loss, stack


class LearningAids:
    """Mixed into `MappoTrainer`; reads its `cfg`, teacher, replay, networks and optimiser."""

    def teacher_weight(self) -> float:
        """`teacher_coef`, faded linearly to 0 over the first `teacher_fade_updates` updates: a teacher speeds
        the start and, kept at full weight, holds the student at the teacher's level (docs/decisions/0008-teacher-fade-out.md)."""
        if self.teacher is None:
            return 0.0
        fade = self.cfg.teacher_fade_updates
        return self.cfg.teacher_coef * (max(0.0, 1.0 - self.update_index / fade) if fade > 0 else 1.0)

    def self_imitate(self, updating: torch.Tensor) -> dict[str, list[float]]:
        """Replayed steps imitated where their return beat the critic (`training.self_imitation`)."""
        losses, better = [], []
        for _ in range(self.cfg.sil_minibatches):
            s = stack(self.replay.sample(self.cfg.sil_batch_size))
            logits, _ = self.actor(s["obs"], s["noise"], s["beta"], s["present"], s["valid"], s["heard"])
            log_probs = torch.distributions.Categorical(logits=logits).log_prob(s["actions"])
            returns = s["returns"] if self.value_norm is None else self.value_norm.normalize(s["returns"])
            loss, share = self_imitation_loss(
                log_probs,
                self.critic(s["state"], s["obs"]),
                returns,
                s["present"] & updating,
                self.cfg.value_coef,
            )
            self._optimiser_step(self.cfg.self_imitation * loss, updating)
            losses.append(float(loss.detach()))
            better.append(share)
        return {"sil_loss": losses, "sil_better_share": better}
