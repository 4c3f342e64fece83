"""What a deployment's WebSocket group hears: episodes, their decision steps as they are made, the reply's
text as it is written (``reply_chunk``: request id, part index, agent, text) and each settled part
(``reply_part``), breaker transitions and alerts, batch progress. A message is ``{"type": "deployment.event", "event": {...}}``,
which the consumer forwards as one frame (``event["kind"]`` says which), or ``{"type": "deployment.events",
"events": [...]}`` (`publish_many`: the records of one step, the episodes of a micro-batch), which it
forwards as one frame per event, in order.

Publishing never waits for Redis: events go to this process's outbox, whose one thread sends what has
gathered, a deployment's waiting events as one group send and in the order they were published. Under
load a ticket published ~8 messages (its steps, reply chunks and parts, its episode), each a blocking
round trip that held the group's turn on the deployment and cost the publisher's CPU; now a group's
events travel in a few sends (bench/web_tickets.py)."""

from __future__ import annotations

import atexit
import logging
import threading
from collections import deque
from typing import Any

from mase_web.deployments.serializers import AlertSerializer, TransitionSerializer
from mase_web.realtime.facade import publisher

log = logging.getLogger(__name__)


def deployment_group(deployment_id: int) -> str:
    return f"deployment.{deployment_id}"


class _Outbox:
    """Events waiting to be sent, per process; one daemon thread sends them, oldest first."""

    LIMIT = 20_000  # events held while the channel layer is down; beyond it the oldest are dropped

    def __init__(self) -> None:
        self._pending: deque[tuple[int, dict[str, Any]]] = deque()
        self._ready = threading.Condition()
        self._idle = threading.Event()
        self._idle.set()
        self._thread: threading.Thread | None = None

    def put(self, deployment_id: int, events: list[dict[str, Any]]) -> None:
        with self._ready:
            dropped = max(0, len(self._pending) + len(events) - self.LIMIT)
            for _ in range(min(dropped, len(self._pending))):
                self._pending.popleft()
            self._pending.extend((deployment_id, event) for event in events)
            self._idle.clear()
            if self._thread is None or not self._thread.is_alive():
                if self._thread is None:  # sent before the publisher closes at exit (atexit runs last first)
                    publisher()
                    atexit.register(self.flush, 5.0)
                self._thread = threading.Thread(target=self._run, name="deployment-events", daemon=True)
                self._thread.start()
            self._ready.notify()
        if dropped:
            log.warning("deployment event outbox full: dropped the %d oldest events", dropped)

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every event put so far has been sent (or failed); False on timeout."""
        return self._idle.wait(timeout)

    def _take(self) -> dict[int, list[dict[str, Any]]]:
        with self._ready:
            while not self._pending:
                self._idle.set()
                self._ready.wait()
            batches: dict[int, list[dict[str, Any]]] = {}
            while self._pending:
                deployment_id, event = self._pending.popleft()
                batches.setdefault(deployment_id, []).append(event)
            return batches

    def _run(self) -> None:
        while True:
            for deployment_id, events in self._take().items():
                try:
                    message = {"type": "deployment.events", "events": events}
                    publisher().send(deployment_group(deployment_id), message)
                except Exception:  # noqa: BLE001 - a channel-layer hiccup must not stop the stream
                    count = len(events)
                    log.warning(
                        "could not publish %d events to deployment %s", count, deployment_id, exc_info=True
                    )


_outbox = _Outbox()


def publish(deployment_id: int, kind: str, **payload: Any) -> None:
    """Send one event to everyone watching the deployment; the browser is told, never relied upon."""
    _outbox.put(deployment_id, [{"kind": kind, **payload}])


def publish_many(deployment_id: int, events: list[dict[str, Any]]) -> None:
    """Send several events (each with its ``kind``), in order after those published before; clients get
    one frame per event. Returns at once (the outbox sends them)."""
    if events:
        _outbox.put(deployment_id, events)


def flush(timeout: float = 10.0) -> bool:
    """Wait until this process has sent every event published so far (tests, shutdown)."""
    return _outbox.flush(timeout)


def breaker_changed(deployment_id: int, transitions: list, alerts: list, snapshot: dict) -> None:
    for transition in transitions:
        publish(deployment_id, "breaker", transition=TransitionSerializer(transition).data, breaker=snapshot)
    for alert in alerts:
        publish(deployment_id, "alert", alert=AlertSerializer(alert).data)
