"""What a deployment's WebSocket group hears: episodes, their decision steps as they are made, the reply's
text as it is written (``reply_chunk``: request id, part index, agent, text) and each settled part
(``reply_part``), breaker transitions and alerts, batch progress. A message is ``{"type": "deployment.event", "event": {...}}``,
which the consumer forwards as one frame (``event["kind"]`` says which), or ``{"type": "deployment.events",
"events": [...]}`` (`publish_many`: the records of one step, the episodes of a micro-batch), which it
forwards as one frame per event, in order."""

from __future__ import annotations

import logging
from typing import Any

from mase_web.realtime.publisher import publisher

log = logging.getLogger(__name__)


def deployment_group(deployment_id: int) -> str:
    return f"deployment.{deployment_id}"


def publish(deployment_id: int, kind: str, **payload: Any) -> None:
    """Send one event to everyone watching the deployment; the browser is told, never relied upon."""
    try:
        publisher().send(
            deployment_group(deployment_id), {"type": "deployment.event", "event": {"kind": kind, **payload}}
        )
    except Exception:  # noqa: BLE001 - a channel-layer hiccup must not fail the ticket it reports on
        log.warning("could not publish %s to deployment %s", kind, deployment_id, exc_info=True)


def publish_many(deployment_id: int, events: list[dict[str, Any]]) -> None:
    """Send several events (each with its ``kind``) in one channel-layer message; clients still get one
    frame per event. One group send costs as much as one event, so a step's records travel together."""
    if not events:
        return
    try:
        publisher().send(deployment_group(deployment_id), {"type": "deployment.events", "events": events})
    except Exception:  # noqa: BLE001 - as in `publish`
        log.warning("could not publish %d events to deployment %s", len(events), deployment_id, exc_info=True)


def breaker_changed(deployment_id: int, transitions: list, alerts: list, snapshot: dict) -> None:
    from mase_web.deployments.serializers import AlertSerializer, TransitionSerializer

    for transition in transitions:
        publish(deployment_id, "breaker", transition=TransitionSerializer(transition).data, breaker=snapshot)
    for alert in alerts:
        publish(deployment_id, "alert", alert=AlertSerializer(alert).data)
