"""The teacher's clone as a run's start (`training.teacher_clone_episodes`): before the first update of a
fresh MAPPO/IPPO run, the spec's teacher plays that many training episodes and the actors are fitted to its
actions (the critic to its returns) by `training.offline.pretrain`.

The start is then the trainer's first `best` candidate (`MappoTrainer.train` validates it before the first
update), so a run whose reinforcement learning ends below the clone on validation serves the clone: the
deployed team never scores below its warm start there. The teacher's fading weight during PPO is unchanged.
"""

from __future__ import annotations

from typing import Any

from training.events import EventStream
from training.offline import pretrain

CLONE_EPOCHS = 20
"""Passes over the teacher's episodes (`pretrain`'s minibatches of 256 steps)."""


def teacher_episodes(trainer: Any, episodes: int, seed: int) -> list[dict[str, Any]]:
    """``episodes`` training episodes played by ``trainer.teacher`` (every present agent's action is the
    teacher's; an agent it has no opinion for takes action 0), as `pretrain` reads them."""
    env, teacher, played = trainer.env, trainer.teacher, []
    for k in range(episodes):
        obs, infos = env.reset(seed=seed + k)
        steps: list[dict[str, Any]] = []
        while env.agents:
            state = env.state()
            actions = {}
            for a in env.agents:
                if obs.get(a) is None:
                    continue
                act = teacher(a, obs[a], infos.get(a, {}) if isinstance(infos, dict) else {})
                actions[a] = 0 if act is None else int(act)
            next_obs, rewards, _, _, infos = env.step(actions)
            steps.append({"observations": obs, "state": state, "actions": actions, "rewards": rewards})
            obs = next_obs
        played.append({"episode": k, "steps": steps})
    return played


def clone_teacher(trainer: Any, episodes: int, seed: int, events: EventStream | None = None) -> dict:
    """Fit ``trainer``'s actors (and critic) to its teacher's play on ``episodes`` episodes; returns
    `pretrain`'s statistics ({} without a teacher or episodes)."""
    if trainer.teacher is None or episodes <= 0:
        return {}
    stats = pretrain(
        trainer, teacher_episodes(trainer, episodes, seed), CLONE_EPOCHS, events=events, seed=seed
    )
    if events is not None:
        events.emit("log", message=f"teacher clone: {stats}")
    return stats
