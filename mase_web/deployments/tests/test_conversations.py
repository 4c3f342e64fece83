"""Conversations with a deployed interactive-support team over the API: a trained team (the shipped
template, a moment of training) asks before it answers an ambiguous message, keeps the conversation's state
between turns, ends on the customer's word, and stores every turn with its decisions; the endpoint checks
who may see and talk (other projects and members who see no deployment: 404), answers bad input
with a 400 naming the field, and refuses a turn of a conversation that has ended."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from mase_web.deployments.models import Conversation, DecisionStep, Episode
from mase_web.deployments.tests.conftest import client_for, make_deployment

ROOT = Path(__file__).resolve().parents[3]
AMBIGUOUS = "Hi, I have a problem with my order"


def interactive_spec(**breaker) -> dict:
    spec = json.loads((ROOT / "examples" / "interactive_support.json").read_text())
    # trained for a moment from random actors (no clone of the rules): unsure, so the strict breaker's
    # fallback holds the conversation
    spec["training"] |= {"episodes": 64, "eval_every": 0, "checkpoint_every": 0, "teacher_fade_episodes": 64}
    spec["training"]["teacher_clone_episodes"] = 0
    spec["circuit_breaker"] |= breaker
    return spec


@pytest.fixture(scope="session")
def interactive_checkpoint(tmp_path_factory) -> Path:
    """The interactive-support template trained for 64 episodes (seconds) with its rules teacher."""
    from agents.spec import load_spec
    from training.mappo import run_spec

    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("interactive_team")
    run_spec(load_spec(interactive_spec()), out)
    return out / "checkpoints" / "mappo" / "last"


@pytest.fixture
def deployment(team, interactive_checkpoint):
    """Deployed as trained: the model decides while it is confident enough for the template's breaker."""
    project, _ = team
    return make_deployment(project, interactive_checkpoint, interactive_spec(), name="support chat")


@pytest.fixture
def trusting_deployment(team, interactive_checkpoint):
    """A breaker with threshold 0: every decision is the model's, however unsure (a decision below the
    threshold is the rule fallback's, and a team trained for a moment is unsure of its first one)."""
    project, _ = team
    spec = interactive_spec(confidence_threshold=0.0)
    return make_deployment(project, interactive_checkpoint, spec, name="support chat (model only)")


@pytest.fixture
def unsure_deployment(team, interactive_checkpoint):
    """A breaker that opens on the first decision below 0.99: a team trained for a moment is that unsure,
    so its rule fallback (the best support procedure) holds the conversation, the same on every run."""
    project, _ = team
    spec = interactive_spec(confidence_threshold=0.99, consecutive_low=1)
    return make_deployment(project, interactive_checkpoint, spec, name="support chat (strict breaker)")


def _start(client, deployment, text=AMBIGUOUS):
    return client.post(f"/api/deployments/{deployment.pk}/conversations/", {"text": text}, format="json")


def _say(client, conversation_id, **body):
    return client.post(f"/api/conversations/{conversation_id}/turns/", body, format="json")


def test_a_single_ticket_is_refused_on_its_text_with_where_conversations_go(team, deployment):
    _, users = team
    answer = client_for(users["operator"]).post(
        f"/api/deployments/{deployment.pk}/tickets/", {"text": AMBIGUOUS}, format="json"
    )
    assert answer.status_code == 400
    assert "this team holds conversations" in answer.json()["errors"]["text"][0]
    assert f"/api/deployments/{deployment.pk}/conversations/" in answer.json()["errors"]["text"][0]


def test_the_model_decides_a_turn_and_the_state_lives_on_the_server(team, trusting_deployment):
    _, users = team
    deployment = trusting_deployment
    pm = client_for(users["product_manager"])
    talk = _start(pm, deployment).json()
    (turn,) = talk["turn_list"]
    assert [d["source"] for d in turn["decisions"]] == ["model"]  # the trained checkpoint, not the rules
    assert turn["decisions"][0]["agent"] == "triage"
    assert turn["speaker"] in ("triage", "reviewer", "team") and turn["reply"]
    assert turn["event"]["kind"] in ("question", "answer", "escalated")
    if talk["status"] == "open":  # the next message carries on from the stored state
        talk = _say(pm, talk["id"], text="The jacket I got arrived torn").json()
        assert talk["turns"] == 2 and talk["turn_list"][1]["decisions"][0]["step"] == 1
    stored = Conversation.objects.get(pk=talk["id"])
    assert stored.state["turn"] == talk["turns"] and stored.state["steps"] >= talk["turns"]


def test_a_decision_under_the_threshold_is_the_fallbacks_with_the_models_proposal_logged(team, deployment):
    _, users = team
    (turn,) = _start(client_for(users["product_manager"]), deployment).json()["turn_list"]
    threshold = interactive_spec()["circuit_breaker"]["confidence_threshold"]
    steps = DecisionStep.objects.filter(episode=turn["episode"]).order_by("step")
    assert steps.exists()
    for step in steps:  # whatever this checkpoint's confidence, no decision under the threshold is executed
        proposed = step.reason.get("proposed")
        if step.confidence is not None and step.confidence < threshold:
            assert step.source == "fallback" and step.reason["rule"]
            assert proposed["confidence"] == step.confidence
        elif step.breaker_state == "closed":
            assert step.source == "model" and proposed is None


def test_the_team_asks_before_it_answers_and_the_conversation_ends_on_the_customers_word(
    team, unsure_deployment
):
    _, users = team
    deployment = unsure_deployment
    pm = client_for(users["product_manager"])
    first = _start(pm, deployment)
    assert first.status_code == 201, first.content
    talk = first.json()
    assert talk["status"] == "open" and talk["turns"] == 1
    (turn,) = talk["turn_list"]
    assert turn["customer"] == AMBIGUOUS
    assert turn["event"]["kind"] == "question" and turn["reply"].endswith("?")
    assert talk["awaiting"] == f"answer:{turn['event']['fact']}"
    assert [d["agent"] for d in turn["decisions"]] == ["triage"]
    assert turn["decisions"][0]["action"] == "ask_problem" and turn["decisions"][0]["source"] == "fallback"
    assert deployment.transitions.filter(to_state="open", reason="low_confidence").exists()

    # the state is on the server: a fresh read (a reload) shows the same conversation
    again = pm.get(f"/api/conversations/{talk['id']}/").json()
    assert again["turn_list"][0]["reply"] == turn["reply"]

    second = _say(pm, talk["id"], text="The jacket I got arrived torn").json()
    assert second["turn_list"][-1]["event"] == {"kind": "question", "fact": "goal"}
    talk = _say(pm, talk["id"], text="I'd like a refund please, order 48213").json()
    last = talk["turn_list"][-1]
    assert last["event"]["kind"] == "answer", talk
    # the knowledge base is seeded by the opening message's words, so the article (and the problem the reply
    # names) is the same on every database (it once followed the row id, and PostgreSQL picked another)
    assert (
        last["reply"]
        == "I understand the item arrived damaged. I have started a refund for order #48213. Does this solve it?"
    )
    assert talk["awaiting"] == "feedback"
    assert {d["agent"] for d in last["decisions"]} >= {"knowledge", "resolver", "reviewer"}

    done = _say(pm, talk["id"], text="", accepted=True)
    assert done.status_code == 201
    assert done.json()["status"] == "resolved" and done.json()["ended"] is True

    refused = _say(pm, talk["id"], text="one more thing")
    assert refused.status_code == 400
    assert "has ended (resolved)" in refused.json()["errors"]["conversation"][0]

    # every turn is an episode of the conversation, with its decisions and reply
    episodes = Episode.objects.filter(conversation_id=talk["id"]).order_by("turn")
    assert [e.turn for e in episodes] == list(range(1, done.json()["turns"] + 1))
    assert (
        DecisionStep.objects.filter(episode__conversation_id=talk["id"]).exclude(action="wait").count() >= 5
    )
    assert episodes.first().reply.text == turn["reply"]


def test_who_may_see_and_talk(team, unsure_deployment):
    deployment = unsure_deployment
    _, users = team
    started = _start(client_for(users["operator"]), deployment)
    assert started.status_code == 201
    conversation_id = started.json()["id"]
    stranger = client_for(users["stranger"])
    assert stranger.get(f"/api/conversations/{conversation_id}/").status_code == 404
    assert _say(stranger, conversation_id, text="hello").status_code == 404
    assert _start(stranger, deployment).status_code == 404
    assert stranger.get(f"/api/conversations/?deployment={deployment.pk}").json() == []
    annotator = client_for(users["annotator"])  # a member who sees no deployment: the same 404
    assert annotator.get(f"/api/conversations/{conversation_id}/").status_code == 404
    assert _say(annotator, conversation_id, text=["not", "a", "text"]).status_code == 404
    admin = client_for(users["admin"])
    assert admin.get(f"/api/conversations/?deployment={deployment.pk}").json()[0]["id"] == conversation_id
    assert Conversation.objects.get(pk=conversation_id).turns == 1


def test_bad_input_is_a_400_naming_the_field(team, unsure_deployment):
    deployment = unsure_deployment
    _, users = team
    pm = client_for(users["product_manager"])
    empty = _start(pm, deployment, text="   ")
    assert empty.status_code == 400 and "text" in empty.json()["errors"]
    long = _start(pm, deployment, text="x" * 2001)
    assert long.status_code == 400 and "text" in long.json()["errors"]
    conversation_id = _start(pm, deployment).json()["id"]
    wrong = _say(pm, conversation_id, text="hi", accepted="perhaps")
    assert wrong.status_code == 400 and "accepted" in wrong.json()["errors"]
    assert pm.get("/api/conversations/?deployment=abc").status_code == 400
    assert Conversation.objects.filter(deployment=deployment).count() == 1
