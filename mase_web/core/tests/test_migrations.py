"""Migrations apply from scratch on SQLite and on PostgreSQL, and models match migrations."""

import os
import uuid

import psycopg
import pytest

from mase_web.core.tests.helpers import clean_env, run_manage

POSTGRES_ADMIN_URL = os.environ.get("MASE_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/test")


def test_models_have_migrations(tmp_path):
    result = run_manage(["makemigrations", "--check", "--dry-run"], clean_env(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_migrate_fresh_sqlite(tmp_path):
    env = clean_env(tmp_path, DATABASE_URL=f"sqlite:///{tmp_path / 'fresh.sqlite3'}")
    result = run_manage(["migrate", "--noinput"], env)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "fresh.sqlite3").stat().st_size > 0
    shown = run_manage(["showmigrations", "--plan"], env)
    assert "[ ]" not in shown.stdout and "accounts.0001_initial" in shown.stdout


def _postgres_or_skip():
    try:
        return psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL must be reachable under CI at {POSTGRES_ADMIN_URL}: {exc}")
        pytest.skip(f"no PostgreSQL at {POSTGRES_ADMIN_URL}")


def test_migrate_fresh_postgres(tmp_path):
    admin = _postgres_or_skip()
    name = f"mase_migrate_{uuid.uuid4().hex[:8]}"
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0]
        result = run_manage(["migrate", "--noinput"], clean_env(tmp_path, DATABASE_URL=f"{base}/{name}"))
        assert result.returncode == 0, result.stderr
        with psycopg.connect(f"{base}/{name}") as conn:
            tables = {
                row[0] for row in conn.execute("SELECT tablename FROM pg_tables WHERE schemaname='public'")
            }
        assert {"accounts_project", "accounts_membership", "django_migrations"} <= tables
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()
