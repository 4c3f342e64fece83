"""A drawn team trains and serves as drawn: logistics split into tracking and an address desk, trained by
`run_spec`, served from its checkpoint with the roster's action names, prompts and rule fallback."""

from __future__ import annotations

import json

import pytest
import torch

from agents.backbone import Backbone
from agents.envs.customer_service.roster import CATALOGUE_ACTIONS
from agents.envs.customer_service.tickets import Ticket
from serving.runtime import TeamRuntime
from tests.fixtures.quick_team import QUICK_START, QUICK_TEAM
from tests.fixtures.tiny_models import build_tiny_causal_lm

torch.set_num_threads(1)

MOVED = Ticket("t-moved", "I just moved, please change the address on my order", ("address_change",))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from agents.spec import load_spec
    from training.mappo import run_spec

    tiny = Backbone.load(str(build_tiny_causal_lm(tmp_path_factory.mktemp("tiny_lm"))), max_length=32)
    doc = json.loads(open("examples/customer_service.json").read())
    doc["agents"][1]["intents"] = ["order_tracking", "delivery_delay"]
    doc["agents"].append(
        {
            "id": "address_desk",
            "role": "custom",
            "prompt": "You handle address changes: update the delivery address and redirect parcels.",
            "intents": ["address_change"],
        }
    )
    doc["backbone"] = {"model": tiny.name, "pooling": "mean", "max_length": 32}
    doc["training"] |= {"episodes": 2, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0} | QUICK_TEAM
    doc["environment"]["params"] |= QUICK_START
    doc["circuit_breaker"] |= {"confidence_threshold": 0.0, "step_limit": 9}
    spec = load_spec(doc)
    run_dir = tmp_path_factory.mktemp("run")
    run_spec(spec, run_dir, backbone=tiny)
    checkpoint = run_dir / "checkpoints" / "mappo" / "last"
    return spec, checkpoint, TeamRuntime.from_spec_checkpoint(spec, checkpoint, backbone=tiny)


def test_the_checkpoint_records_the_drawn_roster_and_prompts(served):
    spec, checkpoint, _ = served
    roster = json.loads((checkpoint / "state.json").read_text())["roster"]
    assert [m["id"] for m in roster] == list(spec.agent_ids)
    assert roster[-1] == {
        "id": "address_desk",
        "role": "custom",
        "intents": ["address_change"],
        "prompt": spec.agent("address_desk").prompt,
    }


def test_the_runtime_serves_the_drawn_team(served):
    _, _, runtime = served
    assert runtime.agents[-1] == "address_desk"
    # the template deals roles in training: every specialist may answer any intent (`deal_roles`)
    assert runtime.action_names["address_desk"] == runtime.action_names["logistics"] == list(CATALOGUE_ACTIONS)
    result = runtime.run_ticket(MOVED)
    assert result["sources"]["model"] == result["steps"] > 0


def test_the_rule_fallback_routes_to_the_new_owner(served):
    _, _, runtime = served
    runtime.breaker.force_open("operator", "test the rules")
    try:
        result = runtime.run_ticket(Ticket("t-moved-2", MOVED.text, MOVED.intents))
    finally:
        runtime.breaker.force_closed("operator", "done")
    assert result["sources"].get("fallback") == result["steps"]
    assert result["info"]["predicted_intents"] == ["address_change"] and result["info"]["exact_match"]
