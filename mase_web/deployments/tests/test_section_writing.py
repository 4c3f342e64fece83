"""A deployed research-report team writes its report section by section through its deployment's backend
(the template by default: the draft's own text and the environment's score; a chat-completions server on
loopback: the server's text per section, the template for a section that faults), stored as the reply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from mase_web.accounts.models import Role
from mase_web.deployments import writing
from mase_web.deployments.models import Reply
from mase_web.deployments.tests.conftest import client_for, make_trained_run, named_backbone
from serving.generation import GenerationConfig
from serving.generation.sections import ReportWriter
from serving.generation.template import NOTHING_TO_ANSWER
from tests.fixtures.quick_team import QUICK_TEAM
from tests.serving.generation.conftest import SECRET, chat_server

pytestmark = pytest.mark.django_db
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "research_report.json"


def report_spec(backbone_dir: Path) -> dict:
    doc = json.loads(EXAMPLE.read_text())
    doc["backbone"] = named_backbone(backbone_dir)
    doc["training"] |= {"episodes": 2, "batch_size": 2, "eval_every": 0, "checkpoint_every": 0} | QUICK_TEAM
    # a team trained for a moment rarely finishes a report: a breaker that opens at the first step lets the
    # scripted fallback take the decisions, so every request ends in a draft (the writing is what is tested)
    doc["circuit_breaker"] |= {"confidence_threshold": 1.0, "consecutive_low": 1, "cooldown_s": 3600}
    return doc


@pytest.fixture(scope="module")
def report_checkpoint(tiny_backbone_dir, tmp_path_factory) -> Path:
    """A research-report team trained for a moment on the tiny backbone."""
    from agents.backbone import Backbone
    from agents.spec import load_spec
    from training.mappo import run_spec

    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("report_team")
    backbone = Backbone.load(str(tiny_backbone_dir), pooling="mean", max_length=32)
    run_spec(load_spec(report_spec(tiny_backbone_dir)), out, backbone=backbone)
    return out / "checkpoints" / "mappo" / "last"


@pytest.fixture(autouse=True)
def fresh_writers():
    writing.forget_all()
    yield
    writing.forget_all()


def deploy(users, project, checkpoint, backbone, generation=None) -> int:
    run = make_trained_run(project, checkpoint, report_spec(backbone))
    body = {"run": run.pk, **({"generation": generation} if generation else {})}
    response = client_for(users[Role.PRODUCT_MANAGER]).post("/api/deployments/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def ask(users, deployment_id: int, text: str = "write the report on heat pumps") -> dict:
    """One request naming a topic (a request naming none is out of scope); the team (its scripted
    fallback) writes a report of several sections."""
    answered = client_for(users[Role.OPERATOR]).post(
        f"/api/deployments/{deployment_id}/tickets/", {"text": text}, format="json"
    )
    assert answered.status_code == 201, answered.content
    body = answered.json()
    assert len(body["result"]["reply"]["sections"]) >= 2, body["result"]["info"]
    return body


def test_by_default_the_report_is_the_teams_draft_with_its_score(team, report_checkpoint, tiny_backbone_dir):
    project, users = team
    deployment_id = deploy(users, project, report_checkpoint, tiny_backbone_dir)
    body = ask(users, deployment_id)
    result, reply = body["result"], body["result"]["reply"]
    draft = result["info"]["draft"]
    sections = list(dict.fromkeys(p["section"] for p in draft["paragraphs"]))
    expected = "\n".join(
        line
        for name in sections
        for line in [f"## {name}", *(p["text"] for p in draft["paragraphs"] if p["section"] == name)]
    )
    assert reply["text"] == expected and reply["sections"] == sections and reply["backend"] == "template"
    assert {p["agent"] for p in reply["parts"]} == {"writer"} and reply["faults"] == []
    if result["info"]["accepted"]:
        assert reply["scores"] == result["info"]["scores"]
    row = Reply.objects.get(episode_id=body["episode"]["id"])
    assert row.text == reply["text"] and row.parts == reply["parts"]


def test_the_report_is_on_the_topic_the_request_asks_for(team, report_checkpoint, tiny_backbone_dir):
    project, users = team
    deployment_id = deploy(users, project, report_checkpoint, tiny_backbone_dir)
    for text, topic in [
        ("A short report on heat pumps, please", "heat_pumps"),
        ("coral reefs?", "coral_reefs"),
    ]:
        body = ask(users, deployment_id, text)
        result = body["result"]
        assert result["request"]["item"] == topic == result["info"]["topic"], result["request"]
        assert body["episode"]["task_id"] == topic
        question = ReportWriter.build(GenerationConfig(), []).topics[topic].question
        assert question in result["reply"]["text"]


def test_a_chat_server_writes_each_section_and_a_faulty_one_falls_back(
    team, report_checkpoint, tiny_backbone_dir, tmp_path
):
    project, users = team
    # the server answers with its own (ticket) template, free text that is not the blocks, and fails every
    # request for the opening section (the only one whose blocks ask the report's question) with HTTP 500
    with chat_server(tmp_path / "server.log", faults="error", fault_match="Block: This report asks:") as url:
        settings = {"backend": "openai_compatible", "model": "m", "base_url": url, "max_retries": 0}
        generation = {"settings": settings, "api_key": SECRET}
        deployment_id = deploy(users, project, report_checkpoint, tiny_backbone_dir, generation)
        body = ask(users, deployment_id)
    reply, draft = body["result"]["reply"], body["result"]["info"]["draft"]
    sources = [(p["source"], p["fault"]) for p in reply["parts"]]
    assert sources == [("fallback", "generation_error")] + [("model", None)] * (len(sources) - 1)
    assert reply["parts"][0]["text"] == draft["paragraphs"][0]["text"]  # the template's opening, alone
    assert all(p["text"] == NOTHING_TO_ANSWER for p in reply["parts"][1:])
    # the judge scores the written text (the team's facts were not written: no accuracy)
    judged = ReportWriter.build(GenerationConfig(), []).judge(reply["text"], body["result"])
    assert reply["scores"] == judged and judged["accuracy"] == 0.0
    row = Reply.objects.get(episode_id=body["episode"]["id"])
    assert (row.backend, row.fault, row.fallback) == ("openai_compatible", "generation_error", True)
    assert SECRET not in json.dumps(body)
