"""A MAPPO run reports who listens to whom ("attention" events, before "finished"), in the drawn
roster's agent order, so the run's communication views and the designer's overlay work on a custom
team (issue 20)."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from agents.backbone import Backbone
from tests.fixtures.quick_team import QUICK_START, QUICK_TEAM
from tests.fixtures.tiny_models import build_tiny_causal_lm
from training.events import EventStream

torch.set_num_threads(1)
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service.json"


def test_a_custom_team_run_reports_attention_over_its_drawn_agents(tmp_path):
    from agents.spec import load_spec
    from training.mappo import run_spec

    tiny = Backbone.load(str(build_tiny_causal_lm(tmp_path / "tiny")), max_length=32)
    doc = json.loads(EXAMPLE.read_text())
    doc["agents"][1] |= {"id": "tracking", "intents": ["order_tracking", "delivery_delay"]}
    for edge in doc["edges"]:
        edge["source"], edge["target"] = (
            "tracking" if x == "logistics" else x for x in (edge["source"], edge["target"])
        )
    for rule in doc["fallback"]["rules"]:
        rule["route_to"] = "tracking" if rule["route_to"] == "logistics" else rule["route_to"]
    doc["agents"].append(
        {
            "id": "address_changes",
            "role": "custom",
            "prompt": "You change addresses.",
            "intents": ["address_change"],
        }
    )
    doc["edges"] += [
        {"source": "address_changes", "target": "quality_supervisor", "kind": "communication"},
        {"source": "quality_supervisor", "target": "address_changes", "kind": "communication"},
    ]
    doc["backbone"] = {"model": tiny.name, "pooling": "mean", "max_length": 32}
    doc["training"] |= {"episodes": 4, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0} | QUICK_TEAM
    doc["environment"]["params"] |= QUICK_START
    seen = []
    events = EventStream([seen.append])
    run_spec(load_spec(doc), tmp_path / "run", events=events, backbone=tiny)

    types = [e.type for e in seen]
    assert "attention" in types and types.index("attention") < types.index("finished")
    (report,) = [e.payload for e in seen if e.type == "attention"]  # the last update only (eval_every 0)
    ids = [a["id"] for a in doc["agents"]]
    assert report["agents"] == ids and report["mode"] == "eval" and report["step"] == 2
    matrix = report["matrix"]
    assert len(matrix) == len(ids) and all(len(row) == len(ids) for row in matrix)
    listener, speaker = ids.index("address_changes"), ids.index("quality_supervisor")
    assert all(abs(sum(row) - 1.0) < 1e-3 or sum(row) == 0 for row in matrix)
    assert matrix[listener][speaker] > 0.0  # it hears the only agent it is linked to ...
    assert sum(matrix[listener]) - matrix[listener][speaker] < 1e-6  # ... and nobody else
