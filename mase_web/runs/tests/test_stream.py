"""The run stream over real WebSockets: who may listen, backlog after `after=`, live events, gap fill."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from mase_web.accounts.models import Role
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.recorder import RunEventRecorder
from mase_web.runs.tests.conftest import quick_spec
from training.events import EventStream

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def cookie_of(user) -> dict[str, str]:
    client = Client()
    client.force_login(user)
    return {"Cookie": f"sessionid={client.cookies['sessionid'].value}"}


def add_events(run: Run, seqs) -> None:
    RunEvent.objects.bulk_create(
        RunEvent(run=run, seq=s, type="metrics", payload={"episode": s}, time=timezone.now()) for s in seqs
    )


async def collect(url: str, headers: dict, until_seq: int, during=None, timeout: float = 30) -> list[int]:
    """Every event sequence number received, in order, until `until_seq` arrives."""
    received: list[int] = []
    async with websockets.connect(url, additional_headers={"Origin": "http://127.0.0.1", **headers}) as ws:
        if during is not None:
            await asyncio.to_thread(during)
        while not received or received[-1] < until_seq:
            frame = json.loads(await asyncio.wait_for(ws.recv(), timeout))
            if frame["type"] == "events":
                received += [e["seq"] for e in frame["events"]]
    return received


@pytest.fixture
def run(team):
    project, _ = team
    return Run.objects.create(project=project, name="streamed", spec=quick_spec(), state="running")


@pytest.mark.parametrize("who", [None, "stranger", Role.ANNOTATOR])
def test_only_allowed_users_may_listen(live_services, run_async, team, run, who):
    _, users = team
    headers = cookie_of(users[who]) if who else {}

    async def connect():
        async with websockets.connect(
            f"{live_services.ws_url}/ws/runs/{run.pk}/",
            additional_headers={"Origin": "http://127.0.0.1", **headers},
        ) as ws:
            await ws.recv()

    with pytest.raises(websockets.InvalidStatus) as rejected:
        run_async(connect())
    assert rejected.value.response.status_code == 403


def test_backlog_after_then_live_then_gap_fill(live_services, run_async, team, run):
    _, users = team
    add_events(run, range(1, 51))
    url = f"{live_services.ws_url}/ws/runs/{run.pk}/?after=20"

    def live_and_dropped():
        stream = EventStream(start_seq=50)
        recorder = RunEventRecorder(run.pk).attach(stream)
        for i in range(10):  # 51..60: recorded and published
            stream.emit("metrics", episode=100 + i)
        recorder.flush()
        add_events(run, range(61, 71))  # 61..70: stored but never published (a dropped message)
        stream.last_seq = 70
        for i in range(5):  # 71..75: published; the consumer must fill 61..70 from the database
            stream.emit("metrics", episode=200 + i)
        recorder.close()

    got = run_async(collect(url, cookie_of(users[Role.OPERATOR]), until_seq=75, during=live_and_dropped))
    assert got == list(range(21, 76))


def test_reconnect_gets_exactly_the_missing_events_with_a_token(live_services, run_async, team, run):
    _, users = team
    add_events(run, range(1, 31))
    token = Token.objects.create(user=users[Role.PRODUCT_MANAGER])
    headers = {"Authorization": f"Token {token.key}"}
    first = run_async(collect(f"{live_services.ws_url}/ws/runs/{run.pk}/", headers, until_seq=30))
    assert first == list(range(1, 31))
    add_events(run, range(31, 41))  # happened while the client was away
    again = run_async(
        collect(f"{live_services.ws_url}/ws/runs/{run.pk}/?after={first[-1]}", headers, until_seq=40)
    )
    assert again == list(range(31, 41))


async def collect_events(url: str, headers: dict, until, during=None, timeout: float = 30) -> list[dict]:
    """Every event received, in order, until one satisfies `until`."""
    received: list[dict] = []
    async with websockets.connect(url, additional_headers={"Origin": "http://127.0.0.1", **headers}) as ws:
        if during is not None:
            await asyncio.to_thread(during)
        while not received or not until(received[-1]):
            frame = json.loads(await asyncio.wait_for(ws.recv(), timeout))
            if frame["type"] == "events":
                received += frame["events"]
    return received


def test_a_page_opened_mid_stage_hears_the_progress_so_far_then_the_rest(live_services, run_async, team, run):
    _, users = team
    stream = EventStream()
    recorder = RunEventRecorder(run.pk).attach(stream)
    stage = stream.stage("training", "Training", 10, "episodes").__enter__()
    stage.advance(4)
    stage.report(force=True)  # 4 of 10 stored before anyone watches
    recorder.flush()

    def the_rest():
        stage.advance(6)
        stage.__exit__(None, None, None)
        recorder.close()

    got = run_async(
        collect_events(
            f"{live_services.ws_url}/ws/runs/{run.pk}/",
            cookie_of(users[Role.OPERATOR]),
            until=lambda e: e["type"] == "progress" and e["payload"]["state"] == "done",
            during=the_rest,
        )
    )
    progress = [e["payload"] for e in got if e["type"] == "progress"]
    assert [p["done"] for p in progress][:2] == [0, 4]  # the backlog: the stage's start and where it is
    assert progress[-1] | {"elapsed_s": 0} == {
        "phase": "training",
        "label": "Training",
        "done": 10,
        "total": 10,
        "unit": "episodes",
        "elapsed_s": 0,
        "eta_s": 0.0,
        "state": "done",
    }
    assert [e["seq"] for e in got] == list(range(1, len(got) + 1))
