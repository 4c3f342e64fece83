"""Celery tasks of the realtime app."""

from __future__ import annotations

import socket
import time

from celery import shared_task

from mase_web.realtime.publisher import publisher, user_group


def notify_user(user_id: int, payload: dict) -> None:
    """Push a notification to every open browser tab of one user."""
    publisher().send(user_group(user_id), {"type": "notify", "payload": payload})


@shared_task(name="realtime.ping_user")
def ping_user(user_id: int, note: str = "") -> dict:
    """Round trip through a real worker: the worker names itself in a notification to the user."""
    payload = {"kind": "ping", "note": note, "worker": socket.gethostname(), "sent_at": time.time()}
    notify_user(user_id, payload)
    return payload
