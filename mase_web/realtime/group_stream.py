"""A WebSocket consumer that follows one channel-layer group and sends a heartbeat while it is open.

The run and deployment streams differ in what they send on connect and per event; joining the group,
the heartbeat task and leaving cleanly are the same, and live here.
"""

from __future__ import annotations

import asyncio

from channels.generic.websocket import AsyncJsonWebsocketConsumer

HEARTBEAT = 15.0


class GroupStreamConsumer(AsyncJsonWebsocketConsumer):
    async def join(self, group: str) -> None:
        """Join `group` and accept the socket (join first, so nothing published meanwhile is missed)."""
        self.group = group
        await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()

    def start_heartbeat(self) -> None:
        self.beat = asyncio.create_task(self._heartbeat())

    def heartbeat_frame(self) -> dict:
        return {"type": "heartbeat"}

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "beat"):
            self.beat.cancel()
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            await self.send_json(self.heartbeat_frame())
