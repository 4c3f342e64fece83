"""MAPPO's config is built of three parts (the settings every trainer has, the communication's, PPO's own)
and stays one flat object: a checkpoint written before the split (its `config`, one flat dict) still loads."""

from __future__ import annotations

import dataclasses

from training.mappo import MappoConfig
from training.mappo.config import CommunicationSettings, PpoSettings, TrainerSettings

SAVED_BEFORE_THE_SPLIT = {  # an IPPO checkpoint's state.json "config", as the version before the split wrote it
    "algorithm": "ippo", "counterfactual": False, "critic_input": "state", "sharing": "independent", "comm": False,
    "updates": 7, "episodes_per_update": 32, "epochs": 4, "minibatches": 2, "lr": 0.001, "gamma": 0.99,
    "gae_lambda": 0.95, "clip": 0.2, "value_clip": 0.2, "value_coef": 0.5, "entropy_coef": 0.01, "grad_clip": 1.0,
    "value_norm": True, "hidden": 64, "lora_rank": 4, "msg_dim": 32, "d_k": 32, "explore_share": 0.5,
    "beta_start": 1.0, "beta_end": 0.05, "protocol": None, "reader_hidden": 128, "reader_outputs": 8,
    "reader_fixed": False, "teacher_coef": 0.5, "teacher_fade_updates": 0, "self_imitation": 0.0,
    "replay_capacity": 2048, "sil_minibatches": 4, "sil_batch_size": 128, "useful_eps": 0.05,
    "critic_warmup_updates": 0, "eval_every": 10, "eval_episodes": 64, "checkpoint_every": 10, "cycle_updates": 5,
    "seed": 0, "threads": 1,
}  # fmt: skip


def names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def test_the_parts_split_the_settings_without_overlap():
    parts = (TrainerSettings, CommunicationSettings, PpoSettings)
    assert sum(len(names(p)) for p in parts) == len(names(MappoConfig))
    assert set.union(*(names(p) for p in parts)) == names(MappoConfig)
    assert {"updates", "lr", "seed"} <= names(TrainerSettings) and {"clip", "teacher_coef"} <= names(
        PpoSettings
    )


def test_a_checkpoint_config_saved_before_the_split_loads_and_saves_the_same_keys():
    config = MappoConfig.from_dict(SAVED_BEFORE_THE_SPLIT)
    assert (config.algorithm, config.updates, config.lr, config.sharing) == ("ippo", 7, 0.001, "independent")
    # what a checkpoint now writes: the same keys, plus those added since at their defaults (the old behaviour)
    added_since = {"actor_evidence": "reader", "teacher_clone_episodes": 0, "clone_kl": 0.0, "actor_lr_scale": 1.0}
    assert dataclasses.asdict(config) == {**SAVED_BEFORE_THE_SPLIT, **added_since}
