"""`training.api.train(episodes=N)` (what `mase train --episodes N` calls) budgets MAPPO teams too."""

from __future__ import annotations

import json
from pathlib import Path

from agents.backbone import Backbone
from tests.fixtures.quick_team import QUICK_START, QUICK_TEAM
from tests.fixtures.tiny_models import build_tiny_causal_lm
from training.api import train

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service.json"


def test_episodes_override_sets_the_mappo_budget(tmp_path):
    backbone = Backbone.load(str(build_tiny_causal_lm(tmp_path / "lm")), pooling="mean", max_length=32)
    doc = json.loads(EXAMPLE.read_text())
    doc["backbone"] = {"model": backbone.name, "pooling": "mean", "max_length": 32}
    doc["training"] |= {"episodes": 64, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0} | QUICK_TEAM
    doc["environment"]["params"] |= QUICK_START
    result = train(doc, tmp_path / "run", episodes=4, backbone=backbone)
    assert result.status == "succeeded"
    assert result.episodes == 4  # two updates of two episodes, not the spec's 64
