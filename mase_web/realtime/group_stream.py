"""A WebSocket consumer that follows one channel-layer group and sends a heartbeat while it is open.

The run and deployment streams differ in what they send on connect and per event; joining the group,
the heartbeat task, losing access (see `access`) and leaving cleanly are the same, and live here.
"""

from __future__ import annotations

import asyncio

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from mase_web.realtime.access import REVOKED, access_group, may

HEARTBEAT = 15.0


class GroupStreamConsumer(AsyncJsonWebsocketConsumer):
    groups_joined: tuple[str, ...] = ()
    revoked = False

    async def join(self, group: str, project_id: int, action: str) -> None:
        """Join `group` and accept the socket (join first, so nothing published meanwhile is missed); the
        stream lasts while its user may `action` in `project_id`."""
        self.access = (action, project_id)
        self.groups_joined = (group, access_group(self.scope["user"].id, project_id))
        for name in self.groups_joined:
            await self.channel_layer.group_add(name, self.channel_name)
        await self.accept()

    def start_heartbeat(self) -> None:
        self.beat = asyncio.create_task(self._heartbeat())

    def heartbeat_frame(self) -> dict:
        return {"type": "heartbeat"}

    async def access_changed(self, message: dict) -> None:
        await self._still_allowed()

    async def _still_allowed(self) -> bool:
        """True while the user may still watch; else leave the groups (nothing more is sent) and close."""
        if await may(self.scope["user"], *self.access):
            return True
        self.revoked = True
        await self._leave()
        await self.close(code=REVOKED)
        return False

    async def send(self, text_data=None, bytes_data=None, close=False) -> None:
        if not self.revoked:  # events already queued for this consumer are not sent once access is gone
            await super().send(text_data, bytes_data, close)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "beat"):
            self.beat.cancel()
        await self._leave()

    async def _leave(self) -> None:
        joined, self.groups_joined = self.groups_joined, ()
        for name in joined:
            await self.channel_layer.group_discard(name, self.channel_name)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            if not await self._still_allowed():
                return
            await self.send_json(self.heartbeat_frame())
