"""A deployed writing team (research report, collaborative writing, code generation) answers what it can
do and declines what it cannot: a request under its similarity floor (e.g. a customer-service ticket) gets
"cannot do this request", is logged as out of scope (the episode's status, the reply's fault, found by
review's fault filter) and plays nothing; a request that names one of its items gets that item's answer,
signed by the team. Each team is the shipped template, trained for a moment on the tiny backbone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from agents.envs.customer_service.env import CustomerServiceEnv
from mase_web.accounts.models import Role
from mase_web.deployments import writing
from mase_web.deployments.models import Episode, Reply
from mase_web.deployments.tests.conftest import client_for, make_trained_run, named_backbone
from tests.fixtures.quick_team import QUICK_TEAM

pytestmark = pytest.mark.django_db
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
# per template: a request naming one of its items, the item, and what its answer must hold
ON_TOPIC = {
    "research_report": ("A short report on coral reefs, please", "coral_reefs", "## "),
    "collaborative_writing": ("Please write the post of brief cw07", "cw07", "## "),
    "code_generation": ("Please solve task cg02", "cg02", "```python\ndef clamp"),
}


def template_spec(name: str, backbone_dir: Path) -> dict:
    doc = json.loads((EXAMPLES / f"{name}.json").read_text())
    doc["backbone"] = named_backbone(backbone_dir)
    doc["training"] |= {"episodes": 2, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0} | QUICK_TEAM
    # a team trained for a moment rarely finishes: the scripted fallback takes every decision
    doc["circuit_breaker"] |= {"confidence_threshold": 1.0, "consecutive_low": 1, "cooldown_s": 3600}
    return doc


@pytest.fixture(scope="module", params=sorted(ON_TOPIC))
def trained(request, tiny_backbone_dir, tmp_path_factory) -> tuple[str, dict, Path]:
    from agents.backbone import Backbone
    from agents.spec import load_spec
    from training.mappo import run_spec

    torch.set_num_threads(1)
    name = request.param
    spec = template_spec(name, tiny_backbone_dir)
    out = tmp_path_factory.mktemp(name)
    backbone = Backbone.load(str(tiny_backbone_dir), pooling="mean", max_length=32)
    run_spec(load_spec(spec), out, backbone=backbone)
    return name, spec, out / "checkpoints" / "mappo" / "last"


@pytest.fixture(autouse=True)
def fresh_writers():
    writing.forget_all()
    yield
    writing.forget_all()


def ask(users, deployment_id: int, text: str) -> dict:
    answered = client_for(users[Role.OPERATOR]).post(
        f"/api/deployments/{deployment_id}/tickets/", {"text": text}, format="json"
    )
    assert answered.status_code == 201, answered.content
    return answered.json()


def test_a_writing_team_declines_what_it_cannot_do_and_answers_what_it_can(team, trained):
    project, users = team
    name, spec, checkpoint = trained
    run = make_trained_run(project, checkpoint, spec)
    made = client_for(users[Role.PRODUCT_MANAGER]).post("/api/deployments/", {"run": run.pk}, format="json")
    assert made.status_code == 201, made.content
    deployment_id = made.json()["id"]

    # a customer's ticket sent to a writing team: the floor is chosen to decline such tickets. The tiny
    # backbone's vectors barely mean anything, so not every ticket falls under its floor (the default
    # backbone declines them all: tests/serving/test_request_matching.py); the first that does is used
    asked = (ask(users, deployment_id, t) for t in CustomerServiceEnv.example_requests()[:20])
    off = next(a for a in asked if a["result"]["status"] == "out_of_scope")
    result, reply = off["result"], off["result"]["reply"]
    assert result["status"] == "out_of_scope" and result["steps"] == 0 and result["decisions"] == []
    assert result["request"]["in_scope"] is False and result["request"]["score"] <= result["request"]["floor"]
    assert reply["text"].startswith(f"Sorry, the {spec['name']} team cannot do this request")
    assert "It can " in reply["text"] and reply["parts"] == [] and reply["signature"] == spec["name"]
    episode = Episode.objects.get(pk=off["episode"]["id"])
    assert episode.status == "out_of_scope" and episode.steps.count() == 0
    stored = Reply.objects.get(episode=episode)
    assert stored.fault == "out_of_scope" and stored.fault_kinds == ",out_of_scope,"
    found = client_for(users[Role.OPERATOR]).get("/api/episodes/", {"fault": "out_of_scope", "page_size": 50})
    assert found.status_code == 200, found.content
    assert [e["id"] for e in found.json()["results"]] == [episode.pk]

    text, item, holds = ON_TOPIC[name]
    on = ask(users, deployment_id, text)
    result, reply = on["result"], on["result"]["reply"]
    assert result["request"]["item"] == item and result["request"]["in_scope"] is True
    assert result["status"] != "out_of_scope" and result["steps"] > 0 and result["faults"] == []
    assert holds in reply["text"] and "cannot do" not in reply["text"] and reply["signature"] == spec["name"]
    if name == "code_generation":  # the code the team wrote, and what the tests said
        assert "## Tests\nThe hidden tests" in reply["text"]
