"""A reply is faulted when any of its parts is: a chat server on loopback faults only the later parts of a
deployment's reply; the stored reply keeps every fault kind, review's fault filters find it by any of
them, a batch counts them, and each part keeps its own fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments import inference, writing
from mase_web.deployments.models import DecisionStep, Episode, Reply
from mase_web.deployments.tests.conftest import client_for, make_deployment
from tests.serving.generation.conftest import chat_server

pytestmark = pytest.mark.django_db

NOWHERE = Path("/nonexistent/checkpoint")  # the team never plays here: only its writers write
DRILL = "(drill)"  # the server faults only the parts whose prompt carries this
SPEC = {
    "agents": [
        {"id": "shopping_guide", "role": "shopping_guide", "prompt": "You are the shopping guide."},
        {"id": "logistics", "role": "logistics", "prompt": f"You are the logistics agent. {DRILL}"},
        {"id": "dispute_mediator", "role": "dispute_mediator", "prompt": f"You are the mediator. {DRILL}"},
    ]
}
PLAYED = {
    "info": {"predicted_intents": ["product_question", "order_tracking", "damaged_item"], "approved": True},
    "decisions": [],
}


@pytest.fixture(autouse=True)
def fresh_writers():
    writing.forget_all()
    yield
    writing.forget_all()


def stored_episode(deployment, writer, name: str) -> Episode:
    """An episode with one decision and the reply ``writer`` writes for it, stored as tickets store them."""
    episode = Episode.objects.create(
        deployment=deployment, request_id=name, task_text=name, status="completed"
    )
    DecisionStep.objects.create(episode=episode, step=1, agent="logistics", observation="{}", action="answer",
                                source="model")  # fmt: skip
    reply = writing.reply_for(writer, "my kettle arrived broken, order #4242", PLAYED)
    inference.reply_row(episode, reply).save()
    return episode


def test_faults_of_the_second_and_third_parts_are_the_replys_faults(team, tmp_path):
    project, users = team
    operator = users[Role.OPERATOR]
    deployment = make_deployment(project, NOWHERE, SPEC)
    with chat_server(tmp_path / "server.log", faults="empty,refusal", key=None, fault_match=DRILL) as url:
        deployment.generation = {"backend": "openai_compatible", "base_url": url, "model": "m",
                                 "max_retries": 0, "cooldown_s": 0.0}  # fmt: skip
        deployment.save(update_fields=["generation"])
        writer = writing.writer_for(deployment)
        faulted = stored_episode(deployment, writer, "faulted")
    row = Reply.objects.get(episode=faulted)
    parts = row.parts
    assert [p["agent"] for p in parts] == ["shopping_guide", "logistics", "dispute_mediator"]
    assert parts[0]["fault"] is None and parts[0]["source"] == "model"  # the first part was fine …
    later = {p["fault"] for p in parts[1:]}
    assert later == {"empty_answer", "refusal"} and all(p["source"] == "fallback" for p in parts[1:])
    # … yet the reply is faulted, with both kinds (whichever part the server answered first)
    assert row.fault == parts[1]["fault"] and row.fallback is True
    assert set(filter(None, row.fault_kinds.split(","))) == {"empty_answer", "refusal"}
    clean = Episode.objects.create(
        deployment=deployment, request_id="clean", task_text="c", status="completed"
    )
    Reply.objects.create(episode=clean, text="fine", backend="openai_compatible")

    def episodes(**params) -> list[int]:
        response = client_for(operator).get("/api/episodes/", {"page_size": 50, **params})
        assert response.status_code == 200, response.content
        return sorted(e["id"] for e in response.json()["results"])

    def decisions(**params) -> list[int]:
        response = client_for(operator).get("/api/decisions/", {"page_size": 50, **params})
        assert response.status_code == 200, response.content
        return sorted(d["episode"] for d in response.json()["results"])

    for kind in ("empty_answer", "refusal", "any"):  # found by either part's fault, not only the first
        assert episodes(fault=kind) == [faulted.pk] and decisions(fault=kind) == [faulted.pk]
    assert episodes(fault="none") == [clean.pk] and decisions(fault="none") == []
    assert episodes(fault="generation_timeout") == [] and decisions(fault="garbage") == []
    exported = client_for(operator).get("/api/decisions/export/", {"fault": "refusal"})
    assert (
        exported.status_code == 200
        and f'"episode": {faulted.pk}' in b"".join(exported.streaming_content).decode()
    )
    # the writer's breaker heard it (its cool-down is 0: the next request is already the half-open trial)
    assert [t["reason"] for t in writer.writer.breaker.transitions][:1] in (["empty_answer"], ["refusal"])


def test_a_batch_counts_every_fault_kind_of_its_replies(team):
    from mase_web.deployments.models import BatchJob

    project, _ = team
    deployment = make_deployment(project, NOWHERE, SPEC)
    batch = BatchJob.objects.create(deployment=deployment, tickets=[], total=2)
    for name, first, kinds in [
        ("a", "generation_timeout", ",generation_timeout,refusal,"),
        ("b", "refusal", ",refusal,"),
    ]:
        episode = Episode.objects.create(deployment=deployment, request_id=name, task_text=name, batch=batch)
        Reply.objects.create(
            episode=episode, text=name, backend="local", fault=first, fault_kinds=kinds, fallback=True
        )
    stats = writing.batch_writing(batch)
    assert stats["faults"] == {"generation_timeout": 1, "refusal": 2} and stats["fallback_share"] == 1.0
