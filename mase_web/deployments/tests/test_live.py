"""Against the real daphne server and Celery worker: a ticket's decisions stream over the deployment's
WebSocket as they are made, an operator's force arrives as a breaker event, a batch file runs on the worker
with its progress streamed."""

from __future__ import annotations

import asyncio
import json
import urllib.request

import pytest
import websockets
from rest_framework.authtoken.models import Token

from mase_web.accounts.models import Role
from mase_web.deployments.models import BatchJob, BreakerTransition, Episode
from mase_web.deployments.tests.conftest import fresh_text, make_deployment, team_spec

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def call(base_url: str, token: str, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"{base_url}{path}",
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def listen(url: str, token: str, action, until, timeout: float = 120) -> list[dict]:
    """Every frame from the deployment's stream while ``action`` runs, until ``until(frames)`` holds."""
    frames: list[dict] = []
    headers = {"Origin": "http://127.0.0.1", "Authorization": f"Token {token}"}
    async with websockets.connect(url, additional_headers=headers) as ws:
        frames.append(json.loads(await asyncio.wait_for(ws.recv(), timeout)))  # hello
        task = asyncio.create_task(asyncio.to_thread(action))
        while not until(frames):
            frames.append(json.loads(await asyncio.wait_for(ws.recv(), timeout)))
        await task
    return frames


@pytest.fixture
def deployment(team, trained_checkpoint, tiny_backbone_dir):
    project, _ = team
    return make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))


def test_decisions_stream_as_they_are_made_and_forces_arrive_live(live_services, run_async, team, deployment):
    _, users = team
    token = Token.objects.create(user=users[Role.OPERATOR]).key
    url = f"{live_services.ws_url}/ws/deployments/{deployment.pk}/"
    # The server's first ticket builds the team (seconds of CPU on a busy machine): not while we listen.
    warm = call(
        live_services.base_url,
        token,
        "POST",
        f"/api/deployments/{deployment.pk}/tickets/",
        {"text": fresh_text()},
    )
    assert warm[0] == 201, warm
    replies: list = []

    def send_ticket():
        replies.append(
            call(
                live_services.base_url,
                token,
                "POST",
                f"/api/deployments/{deployment.pk}/tickets/",
                {"text": fresh_text()},
            )
        )

    def finished(frames):
        return any(f["kind"] == "episode" and f["episode"]["status"] != "running" for f in frames)

    frames = run_async(listen(url, token, send_ticket, finished))
    [(status, body)] = replies
    assert status == 201, body
    assert frames[0]["kind"] == "hello" and frames[0]["breaker"]["state"] == "closed"
    kinds = [f["kind"] for f in frames if f["kind"] != "heartbeat"]
    steps = [f for f in frames if f["kind"] == "step"]
    assert kinds[1] == "episode" and kinds[-1] == "episode"
    assert set(kinds[2:-1]) == {"step", "reply_chunk", "reply_part"}  # the template writer streams too
    assert kinds[2:-1] == sorted(kinds[2:-1], key=lambda k: k != "step")  # decide, then write
    assert [s["record"] for s in steps] == body["result"]["decisions"]  # every decision, in order, live
    parts = [f["part"] for f in frames if f["kind"] == "reply_part"]
    assert parts == body["result"]["reply"]["parts"]  # the reply's parts, as they were written
    assert {s["request_id"] for s in steps} == {body["episode"]["request_id"]}

    def force_open():
        replies.append(
            call(live_services.base_url, token, "POST", f"/api/deployments/{deployment.pk}/breaker/",
                 {"state": "open", "reason": "suspicious answers"})
        )  # fmt: skip

    frames = run_async(listen(url, token, force_open, lambda fs: any(f["kind"] == "alert" for f in fs)))
    [breaker] = [f for f in frames if f["kind"] == "breaker"]
    assert breaker["breaker"]["state"] == "open" and breaker["breaker"]["forced"] is True
    assert (breaker["transition"]["why"], breaker["transition"]["actor"]) == (
        "suspicious answers",
        "operator-user",
    )
    [alert] = [f for f in frames if f["kind"] == "alert"]
    assert (
        alert["alert"]["name"] == "circuit_breaker.open"
        and alert["alert"]["transition"] == breaker["transition"]["id"]
    )
    assert BreakerTransition.objects.filter(deployment=deployment, to_state="open").count() == 1


@pytest.mark.parametrize("who", [None, "stranger", Role.ANNOTATOR])
def test_only_allowed_users_may_listen(live_services, run_async, team, deployment, who):
    _, users = team
    headers = {"Origin": "http://127.0.0.1"}
    if who is not None:
        headers["Authorization"] = f"Token {Token.objects.create(user=users[who]).key}"

    async def connect():
        url = f"{live_services.ws_url}/ws/deployments/{deployment.pk}/"
        async with websockets.connect(url, additional_headers=headers) as ws:
            await ws.recv()

    with pytest.raises(websockets.InvalidStatus) as rejected:
        run_async(connect())
    assert rejected.value.response.status_code == 403


def test_a_batch_file_runs_on_the_worker_with_live_progress(live_services, run_async, team, deployment):
    _, users = team
    token = Token.objects.create(user=users[Role.PRODUCT_MANAGER]).key
    lines = [
        {"id": "b-1", "text": fresh_text("where is my parcel?"), "intents": ["order_tracking"]},
        {"id": "b-2", "text": fresh_text("my kettle arrived broken"), "intents": ["damaged_item"]},
        {"id": "b-3", "text": fresh_text("can you recommend a gift?")},
    ]
    jsonl = "\n".join(json.dumps(line) for line in lines)
    replies: list = []

    def upload():
        path = f"/api/deployments/{deployment.pk}/batches/"
        replies.append(call(live_services.base_url, token, "POST", path, {"jsonl": jsonl}))

    def succeeded(frames):
        return any(f["kind"] == "batch" and f["batch"]["state"] == "succeeded" for f in frames)

    url = f"{live_services.ws_url}/ws/deployments/{deployment.pk}/"
    frames = run_async(listen(url, token, upload, succeeded, timeout=180))
    [(status, body)] = replies
    assert status == 202, body
    progress = [f["batch"]["done"] for f in frames if f["kind"] == "batch"]
    assert progress == sorted(progress) and progress[-1] == 3 and 1 in progress and 2 in progress
    batch = BatchJob.objects.get(pk=body["id"])
    assert (batch.state, batch.done, batch.total) == ("succeeded", 3, 3)
    episodes = Episode.objects.filter(batch=batch)
    assert sorted(episodes.values_list("task_id", flat=True)) == ["b-1", "b-2", "b-3"]
    assert episodes.get(task_id="b-1").reward is not None and episodes.get(task_id="b-3").reward is None
    assert all(e.steps.count() > 0 for e in episodes)
