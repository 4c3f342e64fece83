"""Offline pre-training: log a policy's episodes, clone them, and reject malformed logs clearly."""

import json

import pytest
import torch
from test_mappo import COORDINATION, MatrixGame, make_trainer

from training.offline import OfflineDataError, load_episodes, log_episodes, pretrain

torch.set_num_threads(1)


def test_logged_expert_is_cloned_before_any_online_update(tmp_path):
    path = log_episodes(
        MatrixGame(COORDINATION), lambda obs: {a: 0 for a in obs}, 20, tmp_path / "logs.jsonl"
    )
    episodes = load_episodes(path)
    assert len(episodes) == 20 and episodes[0]["steps"][0]["actions"] == {"row": 0, "col": 0}
    trainer = make_trainer(COORDINATION, updates=1)
    assert trainer.evaluate(episodes=1)["success"] == 0.0  # the untrained team miscoordinates
    stats = pretrain(trainer, episodes, epochs=30, batch_size=8, lr=0.01)
    assert stats["imitation_accuracy"] == 1.0
    assert trainer.evaluate(episodes=1)["success"] == 1.0


def test_malformed_logs_name_the_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"steps": [{"observations": {}, "actions": {}}]}) + "\n")
    with pytest.raises(OfflineDataError, match=r"bad.jsonl:1: step 0 needs"):
        load_episodes(bad)
    bad.write_text("{oops\n")
    with pytest.raises(OfflineDataError, match="not valid JSON"):
        load_episodes(bad)
    with pytest.raises(OfflineDataError, match="does not exist"):
        load_episodes(tmp_path / "missing.jsonl")
    good = log_episodes(MatrixGame(COORDINATION), lambda obs: {"row": 0, "col": 2}, 2, tmp_path / "ok.jsonl")
    rows = load_episodes(good)
    rows[0]["steps"][0]["actions"]["col"] = 7
    with pytest.raises(OfflineDataError, match="outside the agents' action spaces"):
        pretrain(make_trainer(COORDINATION, updates=1), rows)
