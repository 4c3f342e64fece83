"""ASGI entry point: HTTP through Django, WebSockets through Channels (session-authenticated)."""

import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
# Static files (the Vite bundle) are served by the app itself so one process is enough to run MASE;
# a reverse proxy in front may serve /static/ directly in large deployments.
django_asgi_app = ASGIStaticFilesHandler(get_asgi_application())

from django.conf import settings  # noqa: E402

# Django runs each HTTP request's sync code on a thread (and connection) of its own; a connection kept
# alive past its request stays open until that request's objects are garbage-collected, so a busy server
# ran PostgreSQL out of connection slots (HTTP 500s at 32 concurrent clients). Close each at request end.
for _database in settings.DATABASES.values():
    _database["CONN_MAX_AGE"] = 0

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from mase_web.realtime.auth import SessionOrTokenAuth  # noqa: E402  (needs the app registry loaded above)
from mase_web.realtime.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(SessionOrTokenAuth(URLRouter(websocket_urlpatterns))),
    }
)
