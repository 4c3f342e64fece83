"""WebSocket authentication: the browser's session cookie, or an API token for the CLI.

The CLI sends `Authorization: Token <key>` (the same token as the REST API).
"""

from __future__ import annotations

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware


@database_sync_to_async
def _user_for_token(key: str):
    from rest_framework.authtoken.models import Token

    token = Token.objects.select_related("user").filter(key=key).first()
    return token.user if token and token.user.is_active else None


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope, receive, send):
        user = scope.get("user")
        if user is None or not user.is_authenticated:
            headers = dict(scope.get("headers", []))
            auth = headers.get(b"authorization", b"").decode("latin-1")
            if auth.startswith("Token "):
                found = await _user_for_token(auth.removeprefix("Token ").strip())
                if found is not None:
                    scope = dict(scope, user=found)
        return await super().__call__(scope, receive, send)


def SessionOrTokenAuth(inner):
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))
