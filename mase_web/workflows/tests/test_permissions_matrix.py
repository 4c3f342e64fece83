"""Every workflow endpoint × every role (anonymous included): who may read, who may change.

Expected outcomes come from `mase_web.accounts.permissions.ALLOWED_ROLES`: view_workflow for product
managers, operators and admins; edit_workflow for product managers and admins. Annotators and
outsiders do not see the project's workflows at all (404, empty lists); anonymous callers are refused.
"""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from mase_web.accounts.models import Role
from mase_web.workflows.models import Workflow, WorkflowVersion
from mase_web.workflows.tests.conftest import template_spec

pytestmark = pytest.mark.django_db

ROLES = [
    "anonymous",
    "outsider",
    Role.ANNOTATOR,
    Role.OPERATOR,
    Role.PRODUCT_MANAGER,
    Role.ADMIN,
    "superuser",
]
READERS = {Role.OPERATOR, Role.PRODUCT_MANAGER, Role.ADMIN, "superuser"}
EDITORS = {Role.PRODUCT_MANAGER, Role.ADMIN, "superuser"}

# name: (method, url template, body, success status, kind) — kind: "read" | "write" | "create" | "open"
ENDPOINTS = {
    "list": ("get", "/api/workflows/", None, 200, "open"),
    "create": (
        "post",
        "/api/workflows/",
        lambda p: {"project": p, "name": "New", "template": "code_generation"},
        201,
        "create",
    ),
    "retrieve": ("get", "/api/workflows/{w}/", None, 200, "read"),
    "update": ("patch", "/api/workflows/{w}/", lambda p: {"name": "Renamed"}, 200, "write"),
    "replace": ("put", "/api/workflows/{w}/", lambda p: {"project": p, "name": "Replaced"}, 200, "write"),
    "delete": ("delete", "/api/workflows/{w}/", None, 204, "write"),
    "validate": ("post", "/api/workflows/{w}/validate/", lambda p: {}, 200, "read"),
    "publish": ("post", "/api/workflows/{w}/publish/", lambda p: {"note": "ship it"}, 201, "write"),
    "versions": ("get", "/api/workflows/{w}/versions/", None, 200, "read"),
    "version": ("get", "/api/workflows/{w}/versions/1/", None, 200, "read"),
    "restore": ("post", "/api/workflows/{w}/versions/1/restore/", lambda p: {}, 200, "write"),
    "diff": ("get", "/api/workflows/{w}/diff/?base=1&target=draft", None, 200, "read"),
    "export": ("get", "/api/workflows/{w}/export/", None, 200, "read"),
    "import_into": ("post", "/api/workflows/{w}/import/", lambda p: {"spec": template_spec()}, 200, "write"),
    "import_new": (
        "post",
        "/api/workflows/import/",
        lambda p: {"project": p, "spec": template_spec()},
        201,
        "create",
    ),
    "templates": ("get", "/api/workflows/templates/", None, 200, "open"),
    "template": ("get", "/api/workflows/templates/research_report/", None, 200, "open"),
    "catalogue": ("get", "/api/workflows/catalogue/", None, 200, "open"),
}


def expected_status(kind: str, role: str, success: int) -> int:
    if role == "anonymous":
        return 403  # session auth first: DRF answers 403 for a missing login
    if kind == "open":
        return success
    if kind == "create":
        if role in EDITORS:
            return success
        return 400 if role == "outsider" else 403  # outsiders are told the project is not theirs
    if role not in READERS:
        return 404  # the workflow is invisible to them
    if kind == "write" and role not in EDITORS:
        return 403
    return success


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
def test_endpoint_role_matrix(team, endpoint, role):
    project, _, users, workflow = team
    method, url, body, success, kind = ENDPOINTS[endpoint]
    client = APIClient()
    if role != "anonymous":
        client.force_login(users[role])  # session auth, as the browser uses
    before = (Workflow.objects.count(), WorkflowVersion.objects.count(), Workflow.objects.get().name)
    kwargs = {"format": "json"} if method != "get" else {}
    if body is not None:
        kwargs["data"] = body(project.pk)
    response = getattr(client, method)(url.format(w=workflow.pk), **kwargs)
    want = expected_status(kind, role, success)
    assert response.status_code == want, (endpoint, role, response.status_code, response.content[:300])
    if response.status_code >= 400:
        body_json = response.json()
        assert set(body_json) == {"detail", "errors"}  # one error shape everywhere
        # a refused request changes nothing
        assert (
            Workflow.objects.count(),
            WorkflowVersion.objects.count(),
            Workflow.objects.get().name,
        ) == before
    if endpoint == "list" and response.status_code == 200:
        assert response.json()["count"] == (1 if role in READERS else 0)


@pytest.mark.parametrize("role", ROLES)
def test_designer_page_access(team, role):
    *_, users, workflow = team
    client = APIClient()
    if role != "anonymous":
        client.force_login(users[role])
    response = client.get(f"/workflows/{workflow.pk}/")
    if role == "anonymous":
        assert response.status_code == 302 and "/login/" in response["Location"]
    elif role in READERS:
        assert response.status_code == 200 and b'data-page="designer"' in response.content
        assert (b'"can_edit": true' in response.content) == (role in EDITORS)
    else:
        assert response.status_code == 404
    listing = client.get("/workflows/")
    # A role that reads workflows in no project (the outsider is an admin elsewhere) gets the 403 page.
    assert listing.status_code == {"anonymous": 302, Role.ANNOTATOR: 403}.get(role, 200)
