"""The live stream of one deployment: ``ws/deployments/<id>/``.

On connect the client gets ``{"kind": "hello", "breaker": snapshot}``, then every event published to the
deployment's group (`mase_web.deployments.live`): episodes, their decision steps as they are made, the
reply as it is written (``reply_chunk``, ``reply_part``), breaker transitions, alerts and batch progress, plus ``{"kind": "heartbeat"}`` every HEARTBEAT seconds.
"""

from __future__ import annotations

from channels.db import database_sync_to_async

from mase_web.accounts.facade import can
from mase_web.deployments import breaker_state
from mase_web.deployments.live import deployment_group
from mase_web.deployments.models import Deployment
from mase_web.realtime.facade import GroupStreamConsumer


@database_sync_to_async
def _visible(user, deployment_id: int) -> Deployment | None:
    deployment = Deployment.objects.filter(pk=deployment_id).first()
    if deployment is None or not can(user, "view_run", deployment.project_id):
        return None
    return deployment


_breaker = database_sync_to_async(breaker_state.snapshot)


class DeploymentStreamConsumer(GroupStreamConsumer):
    async def connect(self) -> None:
        self.deployment_id = int(self.scope["url_route"]["kwargs"]["deployment_id"])
        user = self.scope.get("user")
        deployment = None
        if user is not None and user.is_authenticated:
            deployment = await _visible(user, self.deployment_id)
        if deployment is None:
            await self.close(code=4403)
            return
        await self.join(deployment_group(self.deployment_id), deployment.project_id, "view_run")
        await self.send_json({"kind": "hello", "breaker": await _breaker(deployment)})
        self.start_heartbeat()

    def heartbeat_frame(self) -> dict:
        return {"kind": "heartbeat"}

    async def deployment_event(self, message: dict) -> None:
        await self.send_json(message["event"])

    async def deployment_events(self, message: dict) -> None:
        for event in message["events"]:
            await self.send_json(event)
