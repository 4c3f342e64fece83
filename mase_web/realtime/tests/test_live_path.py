"""A real Celery worker process publishes through the real channel layer to a real WebSocket client."""

import asyncio
import json

import pytest
import websockets
from django.contrib.auth import get_user_model
from django.test import Client

from mase_web.realtime.tasks import ping_user

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def session_cookie_for(username: str) -> tuple[object, str]:
    user = get_user_model().objects.create_user(username, password="pw-for-tests-123")
    client = Client()
    assert client.login(username=username, password="pw-for-tests-123")
    return user, client.cookies["sessionid"].value


def test_worker_round_trip(live_services):
    user = get_user_model().objects.create_user("roundtrip")
    result = ping_user.apply_async((user.id, "round trip"), queue="cpu").get(timeout=60)
    assert result["kind"] == "ping" and result["note"] == "round trip"
    assert result["worker"]  # the worker names the host it ran on


async def _receive_notification(ws_url: str, cookie: str, trigger) -> dict:
    headers = {"Cookie": f"sessionid={cookie}", "Origin": "http://127.0.0.1"}
    async with websockets.connect(f"{ws_url}/ws/notifications/", additional_headers=headers) as ws:
        hello = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert hello["type"] == "hello"
        await asyncio.to_thread(trigger)
        return json.loads(await asyncio.wait_for(ws.recv(), 60))


def test_worker_message_reaches_websocket_client(live_services, run_async):
    user, cookie = session_cookie_for("listener")
    message = run_async(
        _receive_notification(
            live_services.ws_url, cookie, lambda: ping_user.delay(user.id, "to the browser")
        )
    )
    assert message["type"] == "notification"
    assert message["payload"]["note"] == "to the browser"


def test_anonymous_websocket_is_refused(live_services, run_async):
    async def connect():
        async with websockets.connect(
            f"{live_services.ws_url}/ws/notifications/", additional_headers={"Origin": "http://127.0.0.1"}
        ) as ws:
            await asyncio.wait_for(ws.recv(), 10)

    # Closing before accept rejects the handshake itself: the anonymous client never gets a socket.
    with pytest.raises(websockets.InvalidStatus) as rejected:
        run_async(connect())
    assert rejected.value.response.status_code == 403
