"""Publishing to the channel layer from synchronous code (Celery workers, management commands).

channels-redis >= 4 binds its connection pools to the event loop that first used them. Calling
`async_to_sync(layer.group_send)` from sync code makes a new loop per call, and the pools of the
dead loop fail later with "Event loop is closed". The publisher therefore owns ONE event loop in a
background thread for the life of the process and runs every send on it: pools are made once,
reused, and closed on that same loop at shutdown.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from typing import Any

from channels.layers import get_channel_layer


class ChannelPublisher:
    """Thread-safe, synchronous `send(group, message)` onto the channel layer."""

    def __init__(self, timeout: float = 10.0):
        self._timeout = timeout
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="channel-publisher", daemon=True)
        self._thread.start()
        self._layer = get_channel_layer()
        self._closed = False

    def send(self, group: str, message: dict[str, Any]) -> None:
        """Deliver `message` (must have a "type" naming the consumer handler) to every group member."""
        if self._closed:
            raise RuntimeError("publisher is closed")
        future = asyncio.run_coroutine_threadsafe(self._layer.group_send(group, message), self._loop)
        future.result(timeout=self._timeout)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        close_pools = getattr(self._layer, "close_pools", None)
        if close_pools is not None:
            asyncio.run_coroutine_threadsafe(close_pools(), self._loop).result(timeout=self._timeout)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=self._timeout)
        self._loop.close()


_publisher: ChannelPublisher | None = None
_lock = threading.Lock()


def publisher() -> ChannelPublisher:
    """The process-wide publisher (created on first use, closed at exit)."""
    global _publisher
    with _lock:
        if _publisher is None:
            _publisher = ChannelPublisher()
            atexit.register(_publisher.close)
        return _publisher


def user_group(user_id: int) -> str:
    return f"user.{user_id}"
