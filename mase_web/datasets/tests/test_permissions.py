"""Who may do what with datasets: every member reads, product managers, operators and admins write,
annotators only read; every id in a URL, a filter or a body is checked against the caller's projects."""

from __future__ import annotations

import json

import pytest

from mase_web.datasets.models import Dataset
from mase_web.datasets.tests.conftest import make_dataset, upload
from mase_web.runs.tests.conftest import client_for

ROWS = "".join(json.dumps({"text": f"ticket {i}", "intents": ["refund"]}) + "\n" for i in range(20))


@pytest.fixture
def uploaded(people):
    """(project, other project, users, dataset id, version id) with one version uploaded."""
    project, elsewhere, users = people
    dataset = make_dataset(users["pm"], project)
    version = upload(users["pm"], dataset["id"], ROWS).json()["version"]
    return project, elsewhere, users, dataset["id"], version["id"]


def reads(dataset_id: int, version_id: int) -> list[str]:
    return [
        f"/api/datasets/{dataset_id}/",
        f"/api/datasets/{dataset_id}/versions/",
        f"/api/dataset-versions/{version_id}/",
        f"/api/dataset-versions/{version_id}/rows/",
        f"/api/dataset-versions/{version_id}/labels/",
        f"/api/dataset-versions/{version_id}/splits/",
        f"/api/dataset-versions/{version_id}/export/",
    ]


@pytest.mark.parametrize("role", ["pm", "op", "ann", "admin"])
def test_every_member_reads_everything(uploaded, role):
    _, _, users, dataset_id, version_id = uploaded
    client = client_for(users[role])
    for url in reads(dataset_id, version_id):
        assert client.get(url).status_code == 200, url
    assert [d["id"] for d in client.get("/api/datasets/").json()["results"]] == [dataset_id]


@pytest.mark.parametrize("role, allowed", [("pm", True), ("op", True), ("admin", True), ("ann", False)])
def test_product_managers_operators_and_admins_write_annotators_do_not(uploaded, role, allowed):
    project, _, users, dataset_id, _ = uploaded
    client = client_for(users[role])
    created = client.post("/api/datasets/", {"project": project.pk, "name": f"by {role}"}, format="json")
    uploaded_again = upload(users[role], dataset_id, ROWS)
    renamed = client.patch(f"/api/datasets/{dataset_id}/", {"description": f"by {role}"}, format="json")
    expected = (201, 201, 200) if allowed else (403, 403, 403)
    assert (created.status_code, uploaded_again.status_code, renamed.status_code) == expected
    if not allowed:  # refused before the body is judged: an empty body gets the same 403
        assert client_for(users[role]).post(f"/api/datasets/{dataset_id}/upload/", {}).status_code == 403
        assert Dataset.objects.get(pk=dataset_id).versions.count() == 1


def test_another_projects_ids_answer_404_in_urls_and_400_in_bodies(uploaded):
    project, elsewhere, users, dataset_id, version_id = uploaded
    stranger = client_for(users["stranger"])
    missing = dict(zip(reads(dataset_id, version_id), reads(987654, 987654), strict=True))
    for url, missing_url in missing.items():
        response = stranger.get(url)
        assert response.status_code == 404 and response.json()["errors"] == {}, url
        assert response.json() == stranger.get(missing_url).json()  # the same answer as no such object
    assert stranger.patch(f"/api/datasets/{dataset_id}/", {"name": "mine"}, format="json").status_code == 404
    assert upload(users["stranger"], dataset_id, ROWS).status_code == 404
    # Filters naming another project's objects find nothing of them.
    assert stranger.get(f"/api/datasets/?project={project.pk}").json()["results"] == []
    assert stranger.get(f"/api/dataset-versions/?dataset={dataset_id}").json()["results"] == []
    # A body naming a project the caller is not in: the same 400 as a project that does not exist.
    into_theirs = stranger.post("/api/datasets/", {"project": project.pk, "name": "x"}, format="json")
    nowhere = stranger.post("/api/datasets/", {"project": 987654, "name": "x"}, format="json")
    assert into_theirs.status_code == nowhere.status_code == 400
    assert into_theirs.json()["errors"]["project"] == [f"no project {project.pk} among yours"]
    # Nor may a dataset be moved into (or out to) another project.
    mine = make_dataset(users["stranger"], elsewhere, "theirs")
    moved = stranger.patch(f"/api/datasets/{mine['id']}/", {"project": project.pk}, format="json")
    assert moved.status_code == 400 and "project" in moved.json()["errors"]
    Dataset.objects.get(pk=mine["id"], project=elsewhere)
    away = client_for(users["pm"]).patch(
        f"/api/datasets/{dataset_id}/", {"project": elsewhere.pk}, format="json"
    )
    assert away.status_code == 400


def test_ids_are_digits_and_visitors_must_sign_in(uploaded):
    _, _, users, dataset_id, version_id = uploaded
    client = client_for(users["pm"])
    for url in ("/api/datasets/abc/", "/api/dataset-versions/1x/rows/", "/api/datasets/-1/upload/"):
        assert client.get(url).status_code == 404, url
    anonymous = client_for(None)
    for url in reads(dataset_id, version_id):
        assert anonymous.get(url).status_code in (401, 403), url
    assert anonymous.get("/datasets/").status_code == 302  # the page asks to sign in


def test_pages_open_for_members_and_hide_other_projects(uploaded, client):
    _, _, users, dataset_id, _ = uploaded
    client.force_login(users["ann"])
    assert client.get("/datasets/").status_code == 200
    assert client.get(f"/datasets/{dataset_id}/").status_code == 200
    client.force_login(users["stranger"])
    assert client.get(f"/datasets/{dataset_id}/").status_code == 404
