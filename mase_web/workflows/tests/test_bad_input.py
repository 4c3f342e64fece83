"""Malformed or hostile documents get a 400 with field paths, save nothing, and never cause a 500."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from mase_web.accounts.models import Role
from mase_web.workflows.models import Workflow
from mase_web.workflows.tests.conftest import template_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def pm(team):
    client = APIClient()
    client.force_authenticate(team[2][Role.PRODUCT_MANAGER])
    return client


def _raw(client, url: str, body: bytes, method: str = "post"):
    return getattr(client, method)(url, data=body, content_type="application/json")


def _import(client, project, spec):
    return client.post("/api/workflows/import/", {"project": project.pk, "spec": spec}, format="json")


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda s: s.update(agents="three agents"), "$.agents"),
        (lambda s: s["agents"][0].update(lora={"r": "four"}), "$.agents[0].lora.r"),
        (lambda s: s["agents"][1].update(role="wizard"), "$.agents[1].role"),
        (
            lambda s: s["edges"].append({"source": "planner", "target": "ghost", "kind": "dependency"}),
            "$.edges",
        ),
        (lambda s: s["reward"]["terms"][0]["weights"].update(exploration=99), "$.reward.terms[0].weights"),
        (lambda s: s.update(surprise=1), "$.surprise"),
    ],
)
def test_invalid_spec_import_names_the_path_and_saves_nothing(team, pm, mutate, path):
    project = team[0]
    spec = template_spec()
    mutate(spec)
    before = Workflow.objects.count()
    r = _import(pm, project, spec)
    assert r.status_code == 400
    body = r.json()
    assert "nothing was saved" in body["detail"]
    assert any(p.startswith(path) for p in body["errors"]), body["errors"]
    assert Workflow.objects.count() == before


def test_import_into_a_workflow_refuses_an_invalid_spec(team, pm):
    *_, workflow = team
    spec = template_spec()
    spec["agents"][0]["prompt"] = ""
    r = pm.post(f"/api/workflows/{workflow.pk}/import/", {"spec": spec}, format="json")
    assert r.status_code == 400 and "$.agents[0].prompt" in r.json()["errors"]
    workflow.refresh_from_db()
    assert workflow.spec == template_spec()


@pytest.mark.parametrize(
    "body, fragment",
    [
        (b"{not json", "malformed JSON"),
        (b'{"spec": NaN}', "malformed JSON"),
        (b"[" * 200_000 + b"]" * 200_000, "nested far too deeply"),
        (b"\xff\xfe{}", "not valid utf-8"),
    ],
)
def test_malformed_bodies_are_400_with_a_body_path(team, pm, body, fragment):
    before = Workflow.objects.count()
    r = _raw(pm, "/api/workflows/import/", body)
    assert r.status_code == 400
    assert any(fragment in m for m in r.json()["errors"]["body"]), r.json()
    assert Workflow.objects.count() == before


def test_huge_request_body_is_refused(team, pm, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100_000
    spec = template_spec()
    spec["description"] = "x" * 200_000
    r = _raw(pm, "/api/workflows/import/", json.dumps({"project": team[0].pk, "spec": spec}).encode())
    assert r.status_code == 400 and "larger than 100,000 bytes" in r.json()["errors"]["body"][0]


def test_huge_document_under_the_body_limit_is_refused_as_a_draft(team, pm):
    *_, workflow = team
    spec = template_spec()
    spec["description"] = "x" * 1_200_000  # over the spec's 1 MB document limit, under the 2 MiB body limit
    r = pm.patch(f"/api/workflows/{workflow.pk}/", {"spec": spec}, format="json")
    assert r.status_code == 400 and "limit is 1,000,000" in r.json()["errors"]["spec.$"][0]


@pytest.mark.parametrize(
    "field, value, error_key",
    [
        ("spec", [1, 2, 3], "spec.$"),
        ("spec", "a string", "spec.$"),
        ("layout", {"planner": {"x": "left", "y": 0}}, "layout.$.planner"),
        ("layout", {"planner": [0, 0]}, "layout.$.planner"),
        ("layout", [], "layout.$"),
        ("name", "n" * 300, "name"),
        ("name", None, "name"),
    ],
)
def test_draft_fields_with_wrong_types(team, pm, field, value, error_key):
    *_, workflow = team
    r = pm.patch(f"/api/workflows/{workflow.pk}/", {field: value}, format="json")
    assert r.status_code == 400 and error_key in r.json()["errors"], r.json()
    workflow.refresh_from_db()
    assert workflow.spec == template_spec() and workflow.name == "Writing"


def test_deeply_nested_draft_is_refused(team, pm):
    *_, workflow = team
    deep: dict = {"leaf": 1}
    for _ in range(40):
        deep = {"k": deep}
    spec = template_spec()
    spec["environment"] = {"name": None, "params": deep}
    r = pm.patch(f"/api/workflows/{workflow.pk}/", {"spec": spec}, format="json")
    assert r.status_code == 400
    [(path, messages)] = r.json()["errors"].items()
    assert path.startswith("spec.$.environment.params.k") and "nested deeper than 24" in messages[0]


@pytest.mark.parametrize(
    "url",
    [
        "diff/?base=abc",
        "diff/?base=99",
        "diff/?target=1",
        "export/?version=x",
    ],
)
def test_bad_query_parameters(team, pm, url):
    *_, workflow = team
    r = pm.get(f"/api/workflows/{workflow.pk}/{url}")
    assert r.status_code == 400 and r.json()["errors"]


def test_unknown_template_and_missing_note(team, pm):
    project, *_, workflow = team
    r = pm.post("/api/workflows/", {"project": project.pk, "name": "x", "template": "evil"}, format="json")
    assert r.status_code == 400 and "unknown template" in r.json()["errors"]["template"][0]
    r = pm.post(f"/api/workflows/{workflow.pk}/publish/", {}, format="json")
    assert r.status_code == 400 and "note" in r.json()["errors"]
    assert pm.get(f"/api/workflows/{workflow.pk}/versions/7/").status_code == 404


def test_document_with_too_many_values_is_refused(team, pm):
    *_, workflow = team
    spec = template_spec()
    spec["environment"] = {"name": None, "params": {"values": [0] * 100_001}}
    r = pm.patch(f"/api/workflows/{workflow.pk}/", {"spec": spec}, format="json")
    assert r.status_code == 400 and "more than 100,000 values" in r.json()["errors"]["spec.$"][0]
    workflow.refresh_from_db()
    assert workflow.spec == template_spec()
