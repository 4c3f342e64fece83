"""Configuration from environment variables, parsed in one place with clear errors.

Every setting MASE reads is defined here and documented in README.md ("Configuration"). Settings
switch only URLs between the embedded default (SQLite + an embedded Redis on a Unix socket) and
production (PostgreSQL + Redis servers): the code path is the same.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from serving.generation.reach import Reach

BASE_DIR = Path(__file__).resolve().parent.parent


class ConfigError(Exception):
    """A setting a user can fix; the message says what to change (printed as one line at start-up)."""


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name}={raw!r} is not a boolean; use 1/0, true/false, yes/no or on/off")


def env_int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not an integer") from None


def env_int_at_least(name: str, default: int, minimum: int = 1) -> int:
    """An integer setting that must be at least `minimum` (a limit or a duration)."""
    value = env_int(name, default)
    if value < minimum:
        raise ConfigError(f"{name}={value} must be at least {minimum}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if not raw:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


@dataclass(frozen=True)
class RedisTarget:
    """Where Redis lives: a TCP URL (production) or a Unix socket (the embedded default)."""

    url: str  # redis-py form: redis://, rediss:// or unix://
    embedded: bool

    @property
    def socket_path(self) -> str | None:
        parts = urlsplit(self.url)
        return parts.path if parts.scheme == "unix" else None

    @property
    def celery_url(self) -> str:
        """Celery/kombu spell a Unix socket as redis+socket://PATH."""
        path = self.socket_path
        return f"redis+socket://{path}" if path else self.url

    @property
    def channels_host(self) -> dict[str, str | int]:
        # channels-redis blocks 5 s per BZPOPMIN; redis-py >= 8 times reads out after 5 s by default, which
        # killed every WebSocket consumer idle for 5 s ("Timeout reading from …"): allow longer reads.
        return {"address": self.url, "socket_timeout": 30}


def parse_redis_url(raw: str) -> str:
    """Validate REDIS_URL; return it unchanged if it is usable."""
    parts = urlsplit(raw)
    if parts.scheme in {"redis", "rediss"}:
        try:
            port = parts.port
        except ValueError as exc:
            raise ConfigError(f"REDIS_URL={raw!r} has an invalid port ({exc})") from None
        if not parts.hostname:
            raise ConfigError(f"REDIS_URL={raw!r} has no host; expected redis://HOST:PORT/DB")
        db = parts.path.lstrip("/")
        if db and not db.isdigit():
            raise ConfigError(f"REDIS_URL={raw!r}: the database must be a number, e.g. redis://HOST:6379/0")
        del port
        return raw
    if parts.scheme == "unix":
        if not parts.path:
            raise ConfigError(f"REDIS_URL={raw!r} has no socket path; expected unix:///path/to/redis.sock")
        return raw
    raise ConfigError(
        f"REDIS_URL={raw!r} is not a Redis URL; expected redis://HOST:PORT/DB, rediss://… or unix:///PATH"
    )


def env_path(name: str, default: Path) -> Path:
    """A directory from the environment (`~` expanded), else `default`."""
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser().resolve() if value else default


def data_dir() -> Path:
    """MASE_DATA_DIR holds the SQLite database, the embedded Redis socket, runs and checkpoints."""
    if not os.environ.get("MASE_DATA_DIR") and os.environ.get("PYTEST_VERSION"):
        # Each test session gets its own directory (database, Redis socket, queues), so concurrent
        # sessions and a running dev server never share state; processes the tests start inherit it.
        os.environ["MASE_DATA_DIR"] = tempfile.mkdtemp(prefix="mase-test-")
        atexit.register(shutil.rmtree, os.environ["MASE_DATA_DIR"], ignore_errors=True)
    path = Path(os.environ.get("MASE_DATA_DIR") or BASE_DIR / "var").resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def redis_target() -> RedisTarget:
    raw = os.environ.get("REDIS_URL", "").strip()
    if raw:
        return RedisTarget(url=parse_redis_url(raw), embedded=False)
    return RedisTarget(url=f"unix://{data_dir() / 'redis.sock'}", embedded=True)


SQLITE_OPTIONS = {
    "timeout": 30,
    # Writers take the lock when their transaction starts, so a read never has to be upgraded
    # under contention (which SQLite answers with an immediate "database is locked").
    "transaction_mode": "IMMEDIATE",
    # WAL lets the web server read while a worker writes run events.
    "init_command": "PRAGMA journal_mode=WAL;",
}


def database_config() -> dict:
    """DATABASE_URL (PostgreSQL via psycopg 3, or sqlite:///PATH); default: SQLite in MASE_DATA_DIR."""
    import dj_database_url

    raw = os.environ.get("DATABASE_URL", "").strip()
    if not raw:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(data_dir() / "db.sqlite3"),
            # The test database must be a file so real worker processes can share it.
            "TEST": {"NAME": str(data_dir() / "test-db.sqlite3")},
            "OPTIONS": dict(SQLITE_OPTIONS),
        }
    scheme = urlsplit(raw).scheme
    if scheme not in {"postgres", "postgresql", "pgsql", "sqlite"}:
        raise ConfigError(
            f"DATABASE_URL scheme {scheme!r} is not supported; use postgres://USER:PASS@HOST:PORT/DB or sqlite:///PATH"
        )
    try:
        config = dj_database_url.parse(raw, conn_max_age=60, conn_health_checks=True)
    except ValueError as exc:
        raise ConfigError(f"DATABASE_URL is malformed: {exc}") from None
    if config["ENGINE"] == "django.db.backends.postgresql":
        config.setdefault("OPTIONS", {})["connect_timeout"] = 5
    else:
        config["CONN_MAX_AGE"] = 0
        config.setdefault("OPTIONS", {}).update(SQLITE_OPTIONS)
    return config


def secret_key(production: bool) -> str:
    """SECRET_KEY is required in production; in development one is made once and kept in MASE_DATA_DIR."""
    key = os.environ.get("SECRET_KEY", "")
    if key:
        if production:
            check_secret_key_strength(key)
        return key
    if production:
        raise ConfigError("SECRET_KEY must be set when MASE_ENV=production (a long random string)")
    path = data_dir() / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


# Values copied from templates and examples; a key starting with one of them is public knowledge.
PLACEHOLDER_SECRET_KEYS = ("django-insecure", "change-me", "changeme", "change_me", "secret", "your-secret")
SECRET_KEY_MIN_LENGTH = 50
SECRET_KEY_MIN_DISTINCT = 5


def check_secret_key_strength(key: str) -> None:
    """Refuse a production SECRET_KEY that is short, repetitive or a known placeholder."""
    hint = "use a long random string, e.g. python -c 'import secrets; print(secrets.token_urlsafe(50))'"
    if key.strip().lower().startswith(PLACEHOLDER_SECRET_KEYS):
        raise ConfigError(f"SECRET_KEY is a placeholder value, not a secret; {hint}")
    if len(key) < SECRET_KEY_MIN_LENGTH:
        raise ConfigError(
            f"SECRET_KEY is too short for MASE_ENV=production ({len(key)} characters, "
            f"at least {SECRET_KEY_MIN_LENGTH} needed); {hint}"
        )
    if len(set(key)) < SECRET_KEY_MIN_DISTINCT:
        raise ConfigError(
            f"SECRET_KEY is too repetitive for MASE_ENV=production (fewer than {SECRET_KEY_MIN_DISTINCT} "
            f"distinct characters); {hint}"
        )


def environment() -> str:
    value = os.environ.get("MASE_ENV", "development").strip().lower()
    if value not in {"development", "production"}:
        raise ConfigError(f"MASE_ENV={value!r}; expected 'development' or 'production'")
    return value


# The server's own secrets and settings: never a generation backend's API key, even when listed (the key is
# sent to the backend's host as a bearer token).
SERVER_ENV_NAMES = ("SECRET_KEY", "DATABASE_URL", "REDIS_URL", "PGPASSWORD", "PGPASSFILE")
SERVER_ENV_PREFIXES = ("MASE_", "DJANGO_", "CELERY_")


def generation_reach() -> Reach:
    """MASE_GENERATION_HOSTS (host rules a generation backend may connect to) and MASE_GENERATION_KEY_ENVS
    (environment variables that may hold a backend's API key); both empty by default: no remote backend."""
    try:
        hosts = Reach.parse(env_list("MASE_GENERATION_HOSTS", [])).hosts
    except ValueError as exc:
        raise ConfigError(f"MASE_GENERATION_HOSTS: {exc}") from None
    names = env_list("MASE_GENERATION_KEY_ENVS", [])
    own = [n for n in names if n.upper() in SERVER_ENV_NAMES or n.upper().startswith(SERVER_ENV_PREFIXES)]
    if own:
        raise ConfigError(
            f"MASE_GENERATION_KEY_ENVS lists {', '.join(own)}: the server's own secrets and settings never "
            "serve as a generation backend's API key; list only variables that hold one (e.g. OPENAI_API_KEY)"
        )
    try:
        return Reach(hosts, Reach.parse((), names).key_envs)
    except ValueError as exc:
        raise ConfigError(f"MASE_GENERATION_KEY_ENVS: {exc}") from None
