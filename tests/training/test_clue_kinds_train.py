"""A number-guessing team whose informant nodes name their own clue kinds (issue 20: count and clue kind
per node) trains with the gallery template's defaults, and its checkpoint keeps the kinds it learned on."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from agents.backbone import Backbone
from training import api

torch.set_num_threads(1)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "number_guessing.json"
KINDS = ["range", "bit", "range", "bit"]  # n = 16 = 2 · 2 · 2 · 2 with either kind on every digit


def test_a_team_with_mixed_clue_kinds_learns_with_the_template_defaults(tmp_path):
    doc = json.loads(EXAMPLE.read_text())
    informants = [a for a in doc["agents"] if a["role"] == "informant"]
    for agent, kind in zip(informants, KINDS, strict=True):
        agent["clue"] = kind
    backbone = Backbone.load("default")
    result = api.train(doc, tmp_path, backbone=backbone)
    assert result.status == "succeeded"

    final = api.evaluate_run(tmp_path, episodes=500, backbone=backbone, seed=4242)
    assert final["success"] >= 0.95  # chance 1/16
    assert final["distractor_attention"] <= 0.05

    checkpoints = tmp_path / "checkpoints"
    latest = json.loads((checkpoints / "latest.json").read_text())["path"]
    state = json.loads((checkpoints / latest / "state.json").read_text())
    assert [a["clue"] for a in state["spec"]["agents"] if a["role"] == "informant"] == KINDS
