"""The OpenAPI schema committed for the frontend (frontend/src/api.schema.yaml, which `npm run gen:api`
turns into the TypeScript types the pages use) is the one the API describes now: an API change that is
not regenerated fails here instead of drifting silently from the frontend's types."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.core.management import call_command

SCHEMA_FILE = Path(__file__).resolve().parents[3] / "frontend" / "src" / "api.schema.yaml"
REGENERATE = ".venv/bin/python manage.py spectacular --file frontend/src/api.schema.yaml && (cd frontend && npm run gen:api)"


def _current_schema() -> str:
    """What `manage.py spectacular` writes now (its YAML, as the committed file holds it)."""
    out = io.StringIO()
    call_command("spectacular", stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_committed_schema_is_what_the_api_describes():
    from django.db import connection

    if connection.vendor != "sqlite":  # integer bounds follow the backend (int64 on PostgreSQL)
        pytest.skip("the committed schema is generated on the default SQLite database")
    committed = SCHEMA_FILE.read_text(encoding="utf-8")
    assert committed == _current_schema(), (
        f"the API changed; regenerate the frontend's schema and types: {REGENERATE}"
    )


def test_every_schema_type_the_frontend_aliases_is_in_the_schema():
    # The pages alias components as Schema<"Name"> (frontend/src/api.ts); a serializer renamed and the
    # schema regenerated would leave them naming nothing (tsc says so too, this says which, from Python).
    named = {
        name
        for source in SCHEMA_FILE.parent.rglob("*.ts*")
        if not source.name.startswith("api.generated")
        for name in re.findall(r'Schema<"(\w+)">', source.read_text(encoding="utf-8"))
    }
    assert {"Run", "RunDetail", "Deployment", "QueueProgress"} <= named  # the aliases are where they were
    schemas = SCHEMA_FILE.read_text(encoding="utf-8").split("\ncomponents:\n  schemas:\n", 1)[1]
    components = set(re.findall(r"^    (\w+):$", schemas, re.MULTILINE))  # YAML keys of components.schemas
    assert "RunDetail" in components and named - components == set()
