"""Start-up checks: a user's configuration mistake becomes one clear line, not a traceback."""

from __future__ import annotations

import sys
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from mase_web.config import ConfigError


def redact(url: str) -> str:
    """A URL with its password hidden, for error messages."""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def check_database() -> None:
    from django.db import OperationalError, connection

    try:
        connection.ensure_connection()
    except OperationalError as exc:
        settings = connection.settings_dict
        where = (
            settings["NAME"]
            if settings["ENGINE"].endswith("sqlite3")
            else (f"{settings.get('HOST') or 'localhost'}:{settings.get('PORT') or 5432}/{settings['NAME']}")
        )
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        raise ConfigError(f"cannot reach the database at {where} ({reason}); check DATABASE_URL") from None


def check_redis() -> None:
    import redis
    from django.conf import settings

    try:
        redis.Redis.from_url(settings.REDIS.url, socket_connect_timeout=3, socket_timeout=3).ping()
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        raise ConfigError(
            f"cannot reach Redis at {redact(settings.REDIS.url)} ({exc}); check REDIS_URL"
        ) from None


def run_or_explain(action: Callable[[], None]) -> None:
    """Run `action`; configuration and connection errors exit with status 2 and one line on stderr."""
    from django.db import OperationalError

    try:
        action()
    except ConfigError as exc:
        _fail(f"configuration error: {exc}")
    except OperationalError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        _fail(f"database error: {first}; check DATABASE_URL")


def _fail(message: str) -> None:
    print(f"mase: {message}", file=sys.stderr)
    sys.exit(2)
