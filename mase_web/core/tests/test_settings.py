"""Settings are selected from the environment: embedded default vs production URLs."""

import json

import pytest

from mase_web.core.tests.helpers import clean_env, run_python

DUMP = """
import json, django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
django.setup()
from django.conf import settings as s
print(json.dumps({
    "engine": s.DATABASES["default"]["ENGINE"], "name": s.DATABASES["default"]["NAME"],
    "host": s.DATABASES["default"].get("HOST"), "redis": s.REDIS.url, "embedded": s.REDIS.embedded,
    "broker": s.CELERY_BROKER_URL, "channels": s.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"],
    "debug": s.DEBUG, "secure": s.SESSION_COOKIE_SECURE, "hosts": s.ALLOWED_HOSTS,
    "visibility": s.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"], "limit": s.CELERY_TASK_TIME_LIMIT,
}))
"""


def dump(tmp_path, **env):
    result = run_python(DUMP, clean_env(tmp_path, **env))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_embedded_default_is_sqlite_and_unix_socket_redis(tmp_path):
    s = dump(tmp_path)
    assert s["engine"] == "django.db.backends.sqlite3"
    assert s["name"] == str(tmp_path / "db.sqlite3")
    assert s["embedded"] is True
    assert s["redis"] == f"unix://{tmp_path}/redis.sock"
    assert s["broker"] == f"redis+socket://{tmp_path}/redis.sock"
    assert s["channels"] == [{"address": f"unix://{tmp_path}/redis.sock", "socket_timeout": 30}]
    assert s["debug"] is False  # DEBUG is off unless asked for (the run command asks)
    assert s["secure"] is False
    assert s["visibility"] > s["limit"]


def test_production_urls_switch_only_urls(tmp_path):
    s = dump(
        tmp_path,
        MASE_ENV="production",
        SECRET_KEY="x" * 50,
        ALLOWED_HOSTS="mase.example.org",
        DATABASE_URL="postgres://mase:pw@db.internal:5433/mase",
        REDIS_URL="redis://cache.internal:6380/2",
    )
    assert s["engine"] == "django.db.backends.postgresql"
    assert (s["host"], s["name"]) == ("db.internal", "mase")
    assert s["embedded"] is False
    assert s["broker"] == "redis://cache.internal:6380/2"
    assert s["channels"] == [{"address": "redis://cache.internal:6380/2", "socket_timeout": 30}]
    assert s["secure"] is True and s["debug"] is False
    assert s["hosts"] == ["mase.example.org"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MASE_ENV": "production", "ALLOWED_HOSTS": "x"}, "SECRET_KEY must be set"),
        ({"MASE_ENV": "production", "SECRET_KEY": "k" * 50}, "ALLOWED_HOSTS must list"),
        ({"REDIS_URL": "http://nope"}, "is not a Redis URL"),
        ({"REDIS_URL": "redis://host:notaport/0"}, "invalid port"),
        ({"DATABASE_URL": "mysql://x@y/z"}, "scheme 'mysql' is not supported"),
        ({"DEBUG": "maybe"}, "is not a boolean"),
    ],
)
def test_bad_configuration_is_one_clear_line(tmp_path, env, message):
    from mase_web.core.tests.helpers import run_manage

    result = run_manage(["check"], clean_env(tmp_path, **env))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mase: configuration error:") and message in lines[0]


@pytest.mark.parametrize(
    "command", [["migrate"], ["serve", "--port", "1"], ["worker"], ["web", "--port", "1"]]
)
def test_unreachable_database_is_one_clear_line(tmp_path, command):
    from mase_web.core.tests.helpers import run_manage

    env = clean_env(tmp_path, DATABASE_URL="postgres://postgres@127.0.0.1:1/nowhere")
    result = run_manage(command, env)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "127.0.0.1:1" in lines[0] or "port 1" in lines[0]
    assert "DATABASE_URL" in lines[0]


def test_unreachable_redis_is_one_clear_line(tmp_path):
    from mase_web.core.tests.helpers import run_manage

    result = run_manage(["worker"], clean_env(tmp_path, REDIS_URL="redis://127.0.0.1:1/0"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach Redis at redis://127.0.0.1:1/0" in lines[0], result.stderr
