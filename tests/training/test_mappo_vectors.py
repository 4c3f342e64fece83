"""MASE's MAPPO on float-vector observations (`training.mappo.vector_features`): PettingZoo's simple_spread
learns within a small budget, and a spec naming an MPE task trains end to end without a text backbone."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.envs import make_env
from agents.envs.mpe import mpe_available
from training.mappo.config import MappoConfig
from training.mappo.trainer import MappoTeam, MappoTrainer
from training.mappo.vector_features import VectorFeaturizer, is_vector_env

pytestmark = pytest.mark.skipif(
    not mpe_available(), reason="the mpe2 package is not installed (pip install mpe2)"
)


def test_vector_featurizer_pads_and_zeroes_absent_agents():
    f = VectorFeaturizer()
    x = f([np.ones(3, dtype=np.float32), None, np.arange(5)])
    assert x.shape == (3, 5) and x[0].tolist() == [1, 1, 1, 0, 0] and x[1].abs().sum() == 0
    assert f([np.ones(2)], 4).shape == (1, 4)
    assert is_vector_env("mpe") and not is_vector_env("number_guess") and not is_vector_env(None)


def test_mappo_improves_simple_spread_within_a_small_budget():
    torch.set_num_threads(1)
    cfg = MappoConfig(
        algorithm="mappo",
        comm=False,
        sharing="shared",
        updates=12,
        episodes_per_update=20,
        lr=3e-3,
        eval_every=0,
        checkpoint_every=0,
        seed=0,
    )
    trainer = MappoTrainer(
        cfg,
        MappoTeam(lambda split: make_env("mpe", {"task": "simple_spread"}), featurizer=VectorFeaturizer()),
    )
    before = trainer.evaluate(episodes=20)["return"]
    result = trainer.train()
    after = trainer.evaluate(episodes=20)["return"]
    assert result["status"] == "succeeded"
    assert after > before + 3.0, (before, after)  # 6,000 frames: about −40 → −28 on seed 0


def test_spec_on_an_mpe_task_trains_without_a_backbone(tmp_path, monkeypatch):
    from agents.backbone import Backbone
    from training.api import train

    def no_backbone(*args, **kwargs):
        raise AssertionError("a vector environment must not load the text backbone")

    monkeypatch.setattr(Backbone, "load", no_backbone)
    doc = {
        "spec_version": 1,
        "name": "speaker listener",
        "agents": [
            {"id": "speaker_0", "role": "custom", "prompt": "Say which landmark is the target."},
            {"id": "listener_0", "role": "custom", "prompt": "Move to the landmark you are told."},
        ],
        "communication": {"enabled": True},
        "environment": {"name": "mpe", "params": {"task": "simple_speaker_listener", "max_cycles": 10}},
        "training": {
            "algorithm": "mappo",
            "episodes": 8,
            "batch_size": 4,
            "eval_every": 4,
            "eval_episodes": 2,
            "checkpoint_every": 0,
        },
    }
    result = train(doc, tmp_path / "run")
    assert result.status == "succeeded"
    assert np.isfinite(result.metrics["return"])
