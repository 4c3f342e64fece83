"""ASGI entry point: HTTP through Django, WebSockets through Channels (session-authenticated)."""

import os

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
_django_handler = get_asgi_application()  # sets Django up (the app registry) before the imports below

from django.conf import settings  # noqa: E402

from agents.backbone import transformers_classes  # noqa: E402
from mase_web.core.http_pool import PooledASGIHandler  # noqa: E402

# HTTP requests run whole on a fixed pool of threads (mase_web/core/http_pool.py); MASE_WEB_THREADS=0
# keeps Django's own ASGI handler (a fresh thread per request). Static files (the Vite bundle) are served
# by the app itself so one process is enough to run MASE; a reverse proxy may serve /static/ directly.
django_asgi_app = ASGIStaticFilesHandler(
    PooledASGIHandler(settings.MASE_WEB_THREADS) if settings.MASE_WEB_THREADS else _django_handler
)

# Django's own handler runs each HTTP request's sync code on a thread (and connection) of its own; a
# connection kept alive past its request stays open until that request's objects are garbage-collected, so
# a busy server ran PostgreSQL out of connection slots (HTTP 500s at 32 concurrent clients). Close each at
# request end. The pool's threads live on: a SQLite connection (no server slot) is kept on each, which
# saves opening one per request (~15 % of a ticket's CPU); PostgreSQL's still close (threads x processes
# could exceed its slots).
for _database in settings.DATABASES.values():
    _sqlite = _database["ENGINE"] == "django.db.backends.sqlite3"
    _database["CONN_MAX_AGE"] = None if (_sqlite and settings.MASE_WEB_THREADS) else 0

# Resolve the model classes once, here on the main thread, before requests run on many threads at once.
transformers_classes("AutoConfig", "AutoModel", "AutoTokenizer", "AutoModelForCausalLM")

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from mase_web.realtime.auth import SessionOrTokenAuth  # noqa: E402  (needs the app registry loaded above)
from mase_web.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(SessionOrTokenAuth(URLRouter(websocket_urlpatterns))),
    }
)
