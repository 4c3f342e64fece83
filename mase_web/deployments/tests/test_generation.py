"""Replies, not labels: a deployment's agents write the answer (template by default, or a chat-completions
server on loopback through the official client), under the writer's breaker, stored and served with
tokens, latency, cost, backend and fault; the API key never leaves encrypted storage."""

from __future__ import annotations

import logging

import pytest

from agents import places
from mase_web.accounts.models import Role
from mase_web.deployments import writing
from mase_web.deployments.models import Deployment, Reply
from mase_web.deployments.tests.conftest import client_for, fresh_text, make_trained_run, team_spec
from tests.serving.generation.conftest import SECRET, chat_server

pytestmark = pytest.mark.django_db

AGENTS = {"shopping_guide", "logistics", "dispute_mediator", "quality_supervisor"}


@pytest.fixture(autouse=True)
def fresh_writers():
    writing.forget_all()
    yield
    writing.forget_all()


def deploy(users, project, checkpoint, backbone, generation=None):
    run = make_trained_run(project, checkpoint, team_spec(backbone))
    body = {"run": run.pk, **({"generation": generation} if generation else {})}
    response = client_for(users[Role.PRODUCT_MANAGER]).post("/api/deployments/", body, format="json")
    assert response.status_code == 201, response.content
    return response


def send(user, deployment_id, text):
    return client_for(user).post(f"/api/deployments/{deployment_id}/tickets/", {"text": text}, format="json")


def test_by_default_the_template_writes_the_reply_and_it_is_stored(
    team, trained_checkpoint, tiny_backbone_dir
):
    project, users = team
    body = deploy(users, project, trained_checkpoint, tiny_backbone_dir).json()
    assert body["generation"]["backend"] == "template" and body["generation"]["api_key_stored"] is False
    answered = send(users[Role.OPERATOR], body["id"], fresh_text("where is my kettle, order #31337?"))
    assert answered.status_code == 201, answered.content
    reply = answered.json()["result"]["reply"]
    assert reply["text"].startswith("Hello,") and reply["backend"] == "template" and reply["faults"] == []
    assert reply["parts"] and {p["agent"] for p in reply["parts"]} <= AGENTS
    episode = answered.json()["episode"]
    row = Reply.objects.get(episode_id=episode["id"])
    assert (row.text, row.backend, row.fault, row.fallback) == (reply["text"], "template", "", False)
    assert row.completion_tokens > 0 and row.parts == reply["parts"]
    detail = client_for(users[Role.OPERATOR]).get(f"/api/episodes/{episode['id']}/").json()
    assert detail["reply"]["text"] == reply["text"] and detail["result"]["reply"]["parts"] == reply["parts"]
    listed = client_for(users[Role.OPERATOR]).get("/api/episodes/", {"backend": "template"}).json()
    assert [e["id"] for e in listed["results"]] == [episode["id"]]


def test_an_openai_compatible_backend_writes_and_its_key_never_leaves(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path, caplog
):
    project, users = team
    pm, operator = users[Role.PRODUCT_MANAGER], users[Role.OPERATOR]
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []
    with chat_server(tmp_path / "server.log") as url:
        settings = {"backend": "openai_compatible", "base_url": url, "model": "tiny", "max_retries": 0,
                    "prompt_price_per_1k": 1.0, "completion_price_per_1k": 2.0}  # fmt: skip
        created = deploy(
            users, project, trained_checkpoint, tiny_backbone_dir, {"settings": settings, "api_key": SECRET}
        )
        deployment_id = created.json()["id"]
        stored = Deployment.objects.get(pk=deployment_id)
        assert stored.generation_secret and SECRET not in stored.generation_secret  # encrypted at rest
        assert writing.decrypt_secret(stored.generation_secret) == SECRET
        tried = client_for(pm).post(f"/api/deployments/{deployment_id}/generation/test/")
        assert tried.status_code == 200 and tried.json()["ok"] is True and tried.json()["text"]
        answered = send(operator, deployment_id, fresh_text("my lamp arrived broken, order #90210"))
        assert answered.status_code == 201, answered.content
        reply = answered.json()["result"]["reply"]
        assert reply["backend"] == "openai_compatible" and reply["faults"] == []
        assert all(p["backend"] == "openai_compatible" and p["source"] == "model" for p in reply["parts"])
        assert reply["usage"]["completion_tokens"] > 0 and reply["cost"] > 0
        row = Reply.objects.get(episode_id=answered.json()["episode"]["id"])
        assert (
            row.cost == pytest.approx(reply["cost"]) and row.prompt_tokens == reply["usage"]["prompt_tokens"]
        )
        seen += [created.content.decode(), tried.content.decode(), answered.content.decode()]
        for path in ("/api/deployments/", f"/api/deployments/{deployment_id}/", f"/api/deployments/{deployment_id}/generation/",
                     "/api/episodes/", f"/api/episodes/{row.episode_id}/", "/api/decisions/"):  # fmt: skip
            response = client_for(users[Role.ADMIN]).get(path)
            assert response.status_code == 200, path
            seen.append(response.content.decode())
        export = client_for(operator).get("/api/decisions/export/", {"deployment": deployment_id})
        seen.append(b"".join(export.streaming_content).decode())
        # a wrong key: the error reaches the user in words, without the key
        changed = client_for(pm).post(
            f"/api/deployments/{deployment_id}/generation/", {"api_key": "sk-wrong-0000"}, format="json"
        )
        assert changed.status_code == 200 and changed.json()["generation"]["api_key_stored"] is True
        refused = client_for(pm).post(f"/api/deployments/{deployment_id}/generation/test/").json()
        assert (
            refused["ok"] is False and "401" in refused["error"] and "sk-wrong-0000" not in refused["error"]
        )
        seen.append(changed.content.decode())
    seen += [(tmp_path / "server.log").read_text(), caplog.text]
    assert all(SECRET not in text for text in seen)


def test_a_failing_backend_is_a_recorded_fault_and_the_template_still_answers(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    project, users = team
    with chat_server(tmp_path / "server.log", faults="error", key=None) as url:
        settings = {
            "backend": "openai_compatible",
            "base_url": url,
            "model": "m",
            "max_retries": 0,
            "cooldown_s": 60,
        }
        deployment_id = deploy(
            users, project, trained_checkpoint, tiny_backbone_dir, {"settings": settings}
        ).json()["id"]
        replies = [
            send(users[Role.OPERATOR], deployment_id, fresh_text()).json()["result"]["reply"]
            for _ in range(2)
        ]
    first, second = replies
    assert first["text"] and first["fallback"] is True and first["faults"][0]["kind"] == "generation_error"
    assert "HTTP 500" in first["faults"][0]["detail"] and first["breaker"] == "open"
    assert (
        second["text"] and second["fallback"] is True and second["faults"] == []
    )  # the breaker spared the server
    faulty = (
        client_for(users[Role.OPERATOR]).get("/api/episodes/", {"fault": "generation_error"}).json()
    )
    assert len(faulty["results"]) == 1


def test_a_writer_that_cannot_start_still_answers_and_bad_settings_are_400s(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    project, users = team
    pm = users[Role.PRODUCT_MANAGER]
    models = places.places().models_dir
    # a name of the server's models directory, with no model in it
    (models / "no-model-here").mkdir(parents=True, exist_ok=True)
    settings = {"backend": "local", "model": "no-model-here"}
    deployment_id = deploy(
        users, project, trained_checkpoint, tiny_backbone_dir, {"settings": settings}
    ).json()["id"]
    reply = send(users[Role.OPERATOR], deployment_id, fresh_text()).json()["result"]["reply"]
    assert reply["text"] and reply["fallback"] is True and "cannot start" in reply["faults"][0]["detail"]
    tried = client_for(pm).post(f"/api/deployments/{deployment_id}/generation/test/").json()
    assert tried["ok"] is False and "config.json" in tried["error"] and str(models) not in tried["error"]
    url = f"/api/deployments/{deployment_id}/generation/"
    bad = client_for(pm).post(
        url, {"settings": {"backend": "gpt", "timeout_s": -1, "colour": 1}}, format="json"
    )
    assert bad.status_code == 400
    words = " ".join(bad.json()["errors"]["settings"]) if "errors" in bad.json() else bad.content.decode()
    assert "backend" in words and "timeout_s" in words and "colour" in words
    assert client_for(users[Role.OPERATOR]).post(url, {"settings": {}}, format="json").status_code == 403
    back = client_for(pm).post(url, {"settings": {"backend": "template"}}, format="json")
    assert back.status_code == 200 and back.json()["generation"]["backend"] == "template"
    assert send(users[Role.OPERATOR], deployment_id, fresh_text()).json()["result"]["reply"]["faults"] == []


def test_a_batch_reports_what_writing_its_replies_cost(team, trained_checkpoint, tiny_backbone_dir):
    from mase_web.deployments.models import BatchJob
    from mase_web.deployments.tasks import run_batch

    project, users = team
    deployment_id = deploy(users, project, trained_checkpoint, tiny_backbone_dir).json()["id"]
    lines = '{"id": "t-1", "text": "my mug arrived broken, refund please"}\n{"id": "t-2", "text": "where is my parcel?"}\n'
    response = client_for(users[Role.PRODUCT_MANAGER]).post(
        f"/api/deployments/{deployment_id}/batches/", {"jsonl": lines}, format="json"
    )
    assert response.status_code == 202, response.content
    assert response.json()["writing"] is None  # nothing written yet
    assert run_batch(response.json()["id"]) == "succeeded"
    assert Reply.objects.filter(episode__batch_id=response.json()["id"]).count() == 2
    [listed] = client_for(users[Role.OPERATOR]).get(f"/api/deployments/{deployment_id}/batches/").json()
    writing_stats = listed["writing"]
    assert writing_stats["replies"] == 2 and writing_stats["backends"] == ["template"]
    assert (
        writing_stats["tokens"] > 0
        and writing_stats["cost"] == 0.0
        and writing_stats["fallback_share"] == 0.0
    )
    assert 0 <= writing_stats["latency_ms"]["p50"] <= writing_stats["latency_ms"]["p95"]
    assert BatchJob.objects.get(pk=listed["id"]).state == "succeeded"
