"""Fixtures of the datasets tests: a project with a member in every role, a stranger who manages another
project, and helpers to create a dataset and upload a file."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from mase_web.accounts.models import Membership, Project, Role
from mase_web.runs.tests.conftest import client_for


@pytest.fixture
def people(db):
    """(project, other project, {name: user}); the stranger is a product manager of the other project."""
    User = get_user_model()
    project, elsewhere = Project.objects.create(name="shop"), Project.objects.create(name="elsewhere")
    roles = {"pm": Role.PRODUCT_MANAGER, "op": Role.OPERATOR, "ann": Role.ANNOTATOR, "admin": Role.ADMIN}
    users = {}
    for name, role in roles.items():
        users[name] = User.objects.create_user(name)  # API tests sign in without a password
        Membership.objects.create(project=project, user=users[name], role=role)
    users["stranger"] = User.objects.create_user("stranger")
    Membership.objects.create(project=elsewhere, user=users["stranger"], role=Role.PRODUCT_MANAGER)
    return project, elsewhere, users


def make_dataset(user, project, name: str = "tickets", **fields) -> dict:
    response = client_for(user).post(
        "/api/datasets/", {"project": project.pk, "name": name, **fields}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def upload(user, dataset_id: int, content: bytes | str, filename: str = "rows.jsonl", **fields):
    raw = content.encode() if isinstance(content, str) else content
    body = {"file": SimpleUploadedFile(filename, raw), **fields}
    return client_for(user).post(f"/api/datasets/{dataset_id}/upload/", body, format="multipart")
