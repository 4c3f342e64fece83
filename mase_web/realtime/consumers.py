"""WebSocket consumers."""

from __future__ import annotations

from channels.generic.websocket import AsyncJsonWebsocketConsumer

from mase_web.realtime.access import REVOKED, still_active
from mase_web.realtime.publisher import user_group


class NotificationConsumer(AsyncJsonWebsocketConsumer):
    """Personal notifications for the signed-in user (e.g. a run finished, a breaker opened)."""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close(code=4401)
            return
        self.group = user_group(user.id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "hello", "user": user.username})

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def access_changed(self, message: dict) -> None:
        """The account was deactivated or deleted: nothing more is sent, and the socket closes (4403)."""
        if await still_active(self.scope["user"]):
            return
        await self.disconnect(REVOKED)
        del self.group
        await self.close(code=REVOKED)

    async def notify(self, message: dict) -> None:
        await self.send_json({"type": "notification", "payload": message["payload"]})
