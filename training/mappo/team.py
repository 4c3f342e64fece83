"""`MappoTeam`: what a MAPPO run trains and plays with besides its hyper-parameters (`MappoConfig`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from training import distributed
from training.events import EventStream
from training.mappo.featurizer import Featurizer


@dataclass
class MappoTeam:
    """The team a `MappoTrainer(config, team)` trains: its environment and how it is read, and the run's
    companions. Only `env_fn` is required; everything else is off (or the plain default) when left out.

    The environment and how the team reads it:
    - `env_fn(split)` makes a PettingZoo ParallelEnv for "train" or "validation" (one env for both is fine).
    - `featurizer` turns observations and states into vectors (default: a `Featurizer` over `backbone`).
    - `allowed_links` [N, N] bool: who may message whom (default: everyone to everyone).
    - `delivery_threshold`: the attention weight from which a message counts as delivered.
    - `update_periods` {agent: k}: an agent's actor learns every k-th update (default 1, every update).

    How its experience is scored:
    - `reward_fn(agent, env_reward, info, extras) -> float` reshapes the env reward (the reward composer).
    - `success_fn(info) -> float` reads an episode's success from its last info (curriculum, metrics).
    - `teacher(agent, obs, info) -> action` enables teacher–student augmentation.

    The run's companions:
    - `events` hears the run; `scheduler` (evolution), `curriculum` (its level is passed to `env.reset` as
      `{"difficulty": level}`) and `golden` (golden-range metrics) follow the updates.
    - `replay` keeps every training step (made from the config when `self_imitation` > 0 and none given).
    - `group` (training.distributed) makes the trainer one data-parallel rank (default: one process).

    The run's lifecycle, read by `MappoTrainer.run` (the `training.trainer.Trainer` interface):
    - `fresh_start(trainer)` before the first update of a run that resumes from nothing (a warm start).
    - `watch(trainer, progress) -> progress` wraps the per-update callback (the attention views).
    - `before_finish(trainer, status) -> metrics` after the last checkpoint, before "finished"
      (calibration); its metrics join the final ones.
    """

    env_fn: Callable[[str], Any]
    featurizer: Featurizer | None = None
    backbone: Any | None = None  # read by the default featurizer only
    allowed_links: torch.Tensor | None = None
    delivery_threshold: float = 0.05
    update_periods: Mapping[str, int] | None = None
    reward_fn: Callable[..., float] | None = None
    success_fn: Callable[[dict], float] | None = None
    teacher: Callable[[str, Any, dict], int] | None = None
    events: EventStream | None = None
    scheduler: Any | None = None
    curriculum: Any | None = None
    golden: Any | None = None
    replay: Any | None = None
    group: distributed.Group | None = None
    fresh_start: Callable[[Any], None] | None = None
    watch: Callable[[Any, Any], Any] | None = None
    before_finish: Callable[[Any, str], Mapping[str, Any]] | None = None
