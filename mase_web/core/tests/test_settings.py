"""Settings are selected from the environment: embedded default vs production URLs."""

import json

import pytest

from mase_web.core.tests.helpers import clean_env, run_python

STRONG_KEY = "q7Vb-2rXk_9LpWm4Zt8sYc1Hn6Jd3Fg5Ae0Ru-Ki7Ow2Ql9Ez4Ty"  # 52 varied characters

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
    assert s["debug"] is False  # DEBUG is off unless asked for (make run does not ask)
    assert s["secure"] is False
    assert s["visibility"] > s["limit"]


def test_production_urls_switch_only_urls(tmp_path):
    s = dump(
        tmp_path,
        MASE_ENV="production",
        SECRET_KEY=STRONG_KEY,
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


REACH = """
import django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
django.setup()
from django.conf import settings as s
r = s.GENERATION_REACH
print([str(h) for h in r.hosts], sorted(r.key_envs), r.url_problem("http://127.0.0.1:8001/v1") is None)
"""


def test_generation_backends_reach_nothing_unless_the_operator_lists_it(tmp_path):
    default = run_python(REACH, clean_env(tmp_path))
    assert default.returncode == 0, default.stderr
    assert default.stdout.strip().splitlines()[-1] == "[] [] False"
    listed = run_python(
        REACH,
        clean_env(
            tmp_path,
            MASE_GENERATION_HOSTS="127.0.0.1:8001, https://api.example.com",
            MASE_GENERATION_KEY_ENVS="OPENAI_API_KEY",
        ),
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.strip().splitlines()[-1] == (
        "['127.0.0.1:8001', 'https://api.example.com'] ['OPENAI_API_KEY'] True"
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MASE_ENV": "production", "ALLOWED_HOSTS": "x"}, "SECRET_KEY must be set"),
        ({"MASE_ENV": "production", "SECRET_KEY": STRONG_KEY}, "ALLOWED_HOSTS must list"),
        (
            {"MASE_ENV": "production", "ALLOWED_HOSTS": "x", "SECRET_KEY": "Ab3-x9" * 5},
            "SECRET_KEY is too short",
        ),
        ({"MASE_ENV": "production", "ALLOWED_HOSTS": "x", "SECRET_KEY": "abab" * 20}, "too repetitive"),
        (
            {"MASE_ENV": "production", "ALLOWED_HOSTS": "x", "SECRET_KEY": "django-insecure-" + STRONG_KEY},
            "SECRET_KEY is a placeholder",
        ),
        (
            {"MASE_ENV": "production", "ALLOWED_HOSTS": "x", "SECRET_KEY": "change-me" + STRONG_KEY},
            "placeholder",
        ),
        (
            {"MASE_ENV": "production", "ALLOWED_HOSTS": "x", "SECRET_KEY": STRONG_KEY, "DEBUG": "1"},
            "DEBUG must be off when MASE_ENV=production",
        ),
        ({"SIGNIN_THROTTLE_WINDOW": "0"}, "SIGNIN_THROTTLE_WINDOW=0 must be at least 1"),
        ({"REDIS_URL": "http://nope"}, "is not a Redis URL"),
        ({"REDIS_URL": "redis://host:notaport/0"}, "invalid port"),
        ({"DATABASE_URL": "mysql://x@y/z"}, "scheme 'mysql' is not supported"),
        ({"DEBUG": "maybe"}, "is not a boolean"),
        ({"MASE_GENERATION_HOSTS": "api.example.com,*"}, "MASE_GENERATION_HOSTS: '*' is not a host rule"),
        ({"MASE_GENERATION_KEY_ENVS": "OPENAI_API_KEY,SECRET_KEY"}, "lists SECRET_KEY: the server's own"),
        ({"MASE_GENERATION_KEY_ENVS": "database_url"}, "lists database_url: the server's own secrets"),
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


REQUESTS = """
import json, django, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
django.setup()
from django.test import Client
client = Client()
schema, docs = client.get("/api/schema/"), client.get("/api/docs/")
https, http = client.get("/login/", secure=True), client.get("/login/")
proxied = client.get("/login/", HTTP_X_FORWARDED_PROTO="https")
print(json.dumps({
    "schema": schema.status_code, "docs": docs.status_code, "docs_to": docs.get("Location"),
    "hsts_https": https.get("Strict-Transport-Security"), "hsts_http": http.get("Strict-Transport-Security"),
    "hsts_proxied": proxied.get("Strict-Transport-Security"), "csp": https.get("Content-Security-Policy"),
}))
"""


def requests_under(tmp_path, **env):
    result = run_python(REQUESTS, clean_env(tmp_path, **env))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_production_hides_api_docs_from_anonymous_and_sends_hsts_over_https(tmp_path):
    r = requests_under(tmp_path, MASE_ENV="production", SECRET_KEY=STRONG_KEY, ALLOWED_HOSTS="testserver")
    assert r["schema"] == 403
    assert r["docs"] == 302 and r["docs_to"] == "/login/?next=/api/docs/"
    assert r["hsts_https"] == "max-age=31536000"
    assert r["hsts_http"] is None  # HSTS over plain HTTP means nothing; browsers ignore it
    assert r["hsts_proxied"] is None  # X-Forwarded-Proto is not trusted unless asked for
    assert "script-src 'self'" in r["csp"] and "wss://testserver" in r["csp"]


def test_production_behind_a_tls_proxy_trusts_x_forwarded_proto_when_asked(tmp_path):
    r = requests_under(
        tmp_path,
        MASE_ENV="production",
        SECRET_KEY=STRONG_KEY,
        ALLOWED_HOSTS="testserver",
        SECURE_PROXY_SSL_HEADER="1",
        SECURE_HSTS_SECONDS="600",
    )
    assert r["hsts_proxied"] == "max-age=600"


def test_development_keeps_api_docs_open_and_sends_no_hsts(tmp_path):
    r = requests_under(tmp_path, ALLOWED_HOSTS="testserver")
    assert (r["schema"], r["docs"]) == (200, 200)
    assert r["hsts_https"] is None
    assert "wss://testserver" in r["csp"]  # that request came over HTTPS
