"""Against the real daphne server (and a chat-completions server process on loopback behind the
deployment's openai_compatible writer): a ticket's reply streams over the deployment's WebSocket as it is
written, chunk by chunk, each chunk tagged with its part and the agent writing it, each part settled after
its last chunk, and the stored reply is the one the chunks spell."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token

from mase_web.accounts.models import Role
from mase_web.deployments.models import Reply
from mase_web.deployments.tests.conftest import fresh_text, make_deployment, team_spec
from mase_web.deployments.tests.test_live import call, listen
from tests.serving.generation.conftest import chat_server

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_tickets_reply_streams_chunk_by_chunk_tagged_by_agent(
    live_services, run_async, team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    token = Token.objects.create(user=users[Role.OPERATOR]).key
    url = f"{live_services.ws_url}/ws/deployments/{deployment.pk}/"
    with chat_server(tmp_path / "chat.log", key=None) as base_url:
        deployment.generation = {
            "backend": "openai_compatible",
            "base_url": base_url,
            "model": "m",
            "max_retries": 0,
        }
        deployment.save(update_fields=["generation"])
        path = f"/api/deployments/{deployment.pk}/tickets/"
        warm = call(live_services.base_url, token, "POST", path, {"text": fresh_text()})  # builds the team
        assert warm[0] == 201, warm
        replies: list = []
        ticket = fresh_text("my kettle arrived broken and the parcel is late, order #77123")

        def send_ticket():
            replies.append(call(live_services.base_url, token, "POST", path, {"text": ticket}))

        def finished(frames):
            return any(f["kind"] == "episode" and f["episode"]["status"] != "running" for f in frames)

        frames = run_async(listen(url, token, send_ticket, finished))
    [(status, body)] = replies
    assert status == 201, body
    reply, request_id = body["result"]["reply"], body["episode"]["request_id"]
    assert reply["backend"] == "openai_compatible" and reply["faults"] == []
    ours = [f for f in frames if f.get("request_id") == request_id]
    chunks = [f for f in ours if f["kind"] == "reply_chunk"]
    settled = [f for f in ours if f["kind"] == "reply_part"]
    assert chunks and [f["part"] for f in settled] == reply["parts"]
    for index, part in enumerate(reply["parts"]):
        mine = [f for f in chunks if f["index"] == index]
        assert len(mine) > 1 and {f["agent"] for f in mine} == {part["agent"]}  # tagged by the writing agent
        assert "".join(f["text"] for f in mine).strip() == part["text"]  # in order, the whole part
        assert max(ours.index(f) for f in mine) < ours.index(settled[index])  # settled after its last chunk
        assert all(f["episode"] == body["episode"]["id"] for f in mine)
    stored = Reply.objects.get(episode_id=body["episode"]["id"])
    assert stored.text == reply["text"] and [p["text"] for p in stored.parts] == [
        p["text"] for p in reply["parts"]
    ]
    assert "200 stream" in (tmp_path / "chat.log").read_text()  # the writer did ask the server to stream
