"""An open stream closes (code 4403) when its user loses access to the project: a real daphne server,
real WebSocket clients, the membership changed through the ORM as the members API does."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest
import websockets
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client

from mase_web.accounts.models import Membership, Project, Role
from mase_web.deployments.models import Deployment
from mase_web.realtime.group_stream import HEARTBEAT
from mase_web.realtime.publisher import publisher
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.recorder import run_group

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-for-tests-123"


@pytest.fixture
def watched():
    """An operator of a project with a run (one event) and a deployment, and their session cookie."""
    user = get_user_model().objects.create_user("watcher", password=PASSWORD)
    project = Project.objects.create(name="watched")
    membership = Membership.objects.create(project=project, user=user, role=Role.OPERATOR)
    run = Run.objects.create(project=project, name="r", spec={}, state=Run.State.RUNNING)
    RunEvent.objects.create(run=run, seq=1, type="metrics", payload={"episode": 1}, time=datetime.now(UTC))
    deployment = Deployment.objects.create(
        project=project, name="cs", run=run, checkpoint="/nonexistent", spec={}
    )
    client = Client()
    assert client.login(username="watcher", password=PASSWORD)
    return {
        "membership": membership,
        "run": run,
        "deployment": deployment,
        "cookie": client.cookies["sessionid"].value,
    }


async def _orm(work) -> None:
    """Run ORM work in a worker thread, closing that thread's database connection after it (an open one
    would keep PostgreSQL from dropping the test database)."""

    def call() -> None:
        try:
            work()
        finally:
            connections.close_all()

    await asyncio.to_thread(call)


async def _open(ws_url: str, path: str, cookie: str):
    headers = {"Cookie": f"sessionid={cookie}", "Origin": "http://127.0.0.1"}
    ws = await websockets.connect(f"{ws_url}{path}", additional_headers=headers)
    first = json.loads(await asyncio.wait_for(ws.recv(), 10))  # the backlog, or the hello
    assert first.get("type") == "events" or first.get("kind") == "hello", first
    return ws


async def _closed_with(ws, within: float) -> int:
    """The close code once the server closes the socket (frames still in flight are read past)."""
    with pytest.raises(websockets.ConnectionClosed) as closed:
        async with asyncio.timeout(within):
            while True:
                await ws.recv()
    return closed.value.rcvd.code


def test_removing_a_member_closes_their_run_and_deployment_streams(live_services, run_async, watched):
    async def scenario():
        run_ws = await _open(live_services.ws_url, f"/ws/runs/{watched['run'].pk}/", watched["cookie"])
        deployment_ws = await _open(
            live_services.ws_url, f"/ws/deployments/{watched['deployment'].pk}/", watched["cookie"]
        )
        await _orm(watched["membership"].delete)
        # well before a heartbeat: the removal itself closes them
        return await _closed_with(run_ws, HEARTBEAT / 3), await _closed_with(deployment_ws, HEARTBEAT / 3)

    assert run_async(scenario()) == (4403, 4403)


def test_a_role_change_closes_the_stream_only_when_it_takes_access_away(live_services, run_async, watched):
    membership, run = watched["membership"], watched["run"]

    def change_role(role: str) -> None:
        membership.role = role
        membership.save()

    def publish_event(seq: int) -> None:
        event = RunEvent.objects.create(run=run, seq=seq, type="metrics", payload={}, time=datetime.now(UTC))
        publisher().send(run_group(run.pk), {"type": "run.events", "events": [event.as_message()]})

    async def scenario():
        ws = await _open(live_services.ws_url, f"/ws/runs/{run.pk}/", watched["cookie"])
        await _orm(lambda: change_role(Role.PRODUCT_MANAGER))  # may still view runs
        await _orm(lambda: publish_event(2))
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert [e["seq"] for e in frame["events"]] == [2]
        await _orm(lambda: change_role(Role.ANNOTATOR))  # annotators do not see runs
        return await _closed_with(ws, HEARTBEAT / 3)

    assert run_async(scenario()) == 4403


@pytest.mark.slow
def test_the_heartbeat_closes_streams_whose_access_went_without_a_signal(live_services, run_async, watched):
    """A bulk role update sends no signal, nor does a bulk deactivation: the heartbeat's re-check is the
    second line."""
    project = watched["membership"].project
    other = get_user_model().objects.create_user("deactivated", password=PASSWORD)
    Membership.objects.create(project=project, user=other, role=Role.OPERATOR)
    client = Client()
    assert client.login(username="deactivated", password=PASSWORD)
    path = f"/ws/deployments/{watched['deployment'].pk}/"

    def take_access_away() -> None:
        Membership.objects.filter(pk=watched["membership"].pk).update(role=Role.ANNOTATOR)
        get_user_model().objects.filter(pk=other.pk).update(is_active=False)

    async def scenario():
        sockets = [
            await _open(live_services.ws_url, path, cookie)
            for cookie in (watched["cookie"], client.cookies["sessionid"].value)
        ]
        await _orm(take_access_away)
        return await asyncio.gather(*(_closed_with(ws, HEARTBEAT + 10) for ws in sockets))

    assert run_async(scenario()) == [4403, 4403]


def test_deactivating_a_user_closes_their_notification_socket_and_streams(live_services, run_async, watched):
    user = watched["membership"].user

    def deactivate() -> None:
        user.is_active = False
        user.save()

    async def scenario():
        headers = {"Cookie": f"sessionid={watched['cookie']}", "Origin": "http://127.0.0.1"}
        notes = await websockets.connect(
            f"{live_services.ws_url}/ws/notifications/", additional_headers=headers
        )
        assert json.loads(await asyncio.wait_for(notes.recv(), 10))["type"] == "hello"
        stream = await _open(
            live_services.ws_url, f"/ws/deployments/{watched['deployment'].pk}/", watched["cookie"]
        )
        await _orm(deactivate)
        return await _closed_with(notes, HEARTBEAT / 3), await _closed_with(stream, HEARTBEAT / 3)

    assert run_async(scenario()) == (4403, 4403)
