"""The WebSocket URL tree, beside `urls.py`: like it, the one place that assembles every app's consumers.

It sits at the top of the web layer, above the apps, so no app imports another's consumers.
"""

from django.urls import path

from mase_web.deployments.consumers import DeploymentStreamConsumer
from mase_web.realtime.consumers import NotificationConsumer
from mase_web.runs.consumers import RunStreamConsumer

websocket_urlpatterns = [
    path("ws/notifications/", NotificationConsumer.as_asgi()),
    path("ws/runs/<int:run_id>/", RunStreamConsumer.as_asgi()),
    path("ws/deployments/<int:deployment_id>/", DeploymentStreamConsumer.as_asgi()),
]
