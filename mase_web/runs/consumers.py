"""The live stream of one run: backlog after the client's last sequence number, then live events.

The client connects to `/ws/runs/<id>/?after=N`. The consumer joins the run's group BEFORE reading
the backlog, so nothing published meanwhile is missed; every frame carries events in sequence order
and the consumer never sends a number twice. If the channel layer dropped messages (a slow client
whose channel filled up), the gap is noticed and filled from the database. Frames:
  {"type": "events", "events": [{seq, type, payload, time}, ...]}   (batched: high-rate events coalesce)
  {"type": "heartbeat", "last_seq": N}                              (every HEARTBEAT seconds)
"""

from __future__ import annotations

from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from mase_web.accounts.facade import can
from mase_web.realtime.facade import GroupStreamConsumer
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.recorder import run_group

PAGE = 500


@database_sync_to_async
def _project_if_visible(user, run_id: int) -> int | None:
    project_id = Run.objects.filter(pk=run_id).values_list("project_id", flat=True).first()
    return project_id if project_id is not None and can(user, "view_run", project_id) else None


@database_sync_to_async
def _events_between(run_id: int, after: int, upto: int | None) -> list[dict]:
    rows = RunEvent.objects.filter(run_id=run_id, seq__gt=after)
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    return [e.as_message() for e in rows.order_by("seq")[:PAGE]]


class RunStreamConsumer(GroupStreamConsumer):
    async def connect(self) -> None:
        self.run_id = int(self.scope["url_route"]["kwargs"]["run_id"])
        query = parse_qs(self.scope.get("query_string", b"").decode())
        try:
            self.last_sent = max(0, int(query.get("after", ["0"])[0]))
        except ValueError:
            self.last_sent = 0
        user = self.scope.get("user")
        project_id = None
        if user is not None and user.is_authenticated:
            project_id = await _project_if_visible(user, self.run_id)
        if project_id is None:
            await self.close(code=4403)
            return
        await self.join(run_group(self.run_id), project_id, "view_run")
        await self._send_from_database(upto=None)
        self.start_heartbeat()

    def heartbeat_frame(self) -> dict:
        return {"type": "heartbeat", "last_seq": self.last_sent}

    async def run_events(self, message: dict) -> None:
        fresh = [e for e in message["events"] if e["seq"] > self.last_sent]
        if not fresh:
            return
        if fresh[0]["seq"] > self.last_sent + 1:  # the layer dropped something: fill the gap first
            await self._send_from_database(upto=fresh[0]["seq"] - 1)
        await self._send_events([e for e in fresh if e["seq"] > self.last_sent])

    async def _send_from_database(self, upto: int | None) -> None:
        while True:
            page = await _events_between(self.run_id, self.last_sent, upto)
            if not page:
                return
            await self._send_events(page)
            if len(page) < PAGE:
                return

    async def _send_events(self, events: list[dict]) -> None:
        if events:
            await self.send_json({"type": "events", "events": events})
            self.last_sent = events[-1]["seq"]
