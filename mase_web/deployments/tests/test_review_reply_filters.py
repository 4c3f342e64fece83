"""Review by reply: decisions and episodes filtered by the generation backend that wrote the reply and by
fault (any, none, one kind; of a decision or of the reply), validated, documented, and project-bound."""

from __future__ import annotations

from pathlib import Path

import pytest

from mase_web.accounts.models import Project, Role
from mase_web.deployments.models import DecisionStep, Deployment, Episode, Reply
from mase_web.deployments.tests.conftest import client_for, make_deployment

pytestmark = pytest.mark.django_db

SPEC = {"agents": [{"id": "a"}, {"id": "b"}]}
NOWHERE = Path("/nonexistent/checkpoint")  # listing never loads the team


def episode(deployment: Deployment, name: str, backend: str | None, reply_fault="", step_faults=("", "")):
    """An ended episode with one decision per fault in ``step_faults`` and a reply (None: no reply)."""
    row = Episode.objects.create(deployment=deployment, request_id=name, task_text=name, status="completed")
    for i, fault in enumerate(step_faults):
        DecisionStep.objects.create(
            episode=row, step=1, agent="ab"[i], observation="{}", action="answer", source="model", fault=fault
        )
    if backend is not None:
        Reply.objects.create(episode=row, text=f"reply to {name}", backend=backend, fault=reply_fault)
    return row


@pytest.fixture
def replies(team):
    """Four episodes: template clean, local with a refusal, openai_compatible with a timed-out decision, and
    one that wrote no reply; plus a faulty local one in another project."""
    project, users = team
    deployment = make_deployment(project, NOWHERE, SPEC, name="shop")
    episodes = {
        "clean": episode(deployment, "clean", "template"),
        "refused": episode(deployment, "refused", "local", reply_fault="refusal"),
        "slow": episode(deployment, "slow", "openai_compatible", step_faults=("timeout", "")),
        "unwritten": episode(deployment, "unwritten", None),
    }
    elsewhere = make_deployment(Project.objects.get(name="elsewhere"), NOWHERE, SPEC, name="theirs")
    episode(elsewhere, "theirs", "local", reply_fault="garbage")
    return users, deployment, elsewhere, episodes


def listed(user, path: str, **params) -> dict:
    response = client_for(user).get(path, {"page_size": 100, **params})
    assert response.status_code == 200, response.content
    return response.json()


def decision_episodes(user, **params) -> list[int]:
    return sorted(d["episode"] for d in listed(user, "/api/decisions/", **params)["results"])


def episode_ids(user, **params) -> set[int]:
    return {e["id"] for e in listed(user, "/api/episodes/", **params)["results"]}


def test_backend_and_fault_narrow_decisions_and_episodes(replies):
    users, _, _, ep = replies
    op = users[Role.OPERATOR]
    pk = {name: e.pk for name, e in ep.items()}
    assert decision_episodes(op, backend="template") == [pk["clean"]] * 2
    assert decision_episodes(op, backend="local") == [pk["refused"]] * 2  # not the other project's
    assert decision_episodes(op, backend="openai_compatible") == [pk["slow"]] * 2
    # a decision's fault: its own, or its episode's reply's
    assert decision_episodes(op, fault="refusal") == [pk["refused"]] * 2
    assert decision_episodes(op, fault="timeout") == [pk["slow"]]
    assert decision_episodes(op, fault="any") == sorted([pk["refused"]] * 2 + [pk["slow"]])
    assert decision_episodes(op, fault="none") == sorted(
        [pk["clean"]] * 2 + [pk["slow"]] + [pk["unwritten"]] * 2
    )
    assert decision_episodes(op, fault="garbage") == []
    assert decision_episodes(op, backend="openai_compatible", fault="none") == [pk["slow"]]
    assert decision_episodes(op, backend="template", fault="any") == []
    # an episode's fault: any of its decisions', or its reply's
    assert episode_ids(op, backend="local") == {pk["refused"]}
    assert episode_ids(op, fault="any") == {pk["refused"], pk["slow"]}
    assert episode_ids(op, fault="none") == {pk["clean"], pk["unwritten"]}
    assert episode_ids(op, fault="timeout", backend="openai_compatible") == {pk["slow"]}
    assert episode_ids(op) == set(pk.values())
    # the export takes the same filters
    export = client_for(op).get("/api/decisions/export/", {"fault": "refusal"})
    assert export.status_code == 200 and len(b"".join(export.streaming_content).splitlines()) == 2


@pytest.mark.parametrize(
    "params",
    [
        {"backend": "gpt"},
        {"fault": "broken"},
        {"fault": "ANY"},
        {"backend": "TEMPLATE"},
        {"fault": "any", "backend": "x"},
    ],
)
def test_bad_backend_or_fault_is_a_400_naming_it(replies, params):
    users = replies[0]
    for path in ("/api/decisions/", "/api/episodes/", "/api/decisions/export/"):
        response = client_for(users[Role.OPERATOR]).get(path, params)
        assert response.status_code == 400, (path, response.content)
        assert set(response.json()["errors"]) & set(params), response.json()


def test_filters_stay_within_the_projects_you_may_review(replies):
    users, deployment, elsewhere, ep = replies
    stranger = users["stranger"]  # an admin of the other project only
    assert decision_episodes(stranger, backend="local") == [Episode.objects.get(request_id="theirs").pk] * 2
    assert decision_episodes(stranger, backend="template") == []
    assert episode_ids(stranger, fault="refusal") == set()
    # another project's deployment is refused as before, whatever the reply filters
    refused = client_for(users[Role.OPERATOR]).get(
        "/api/decisions/", {"deployment": elsewhere.pk, "backend": "local", "fault": "any"}
    )
    assert refused.status_code == 400 and "deployment" in refused.json()["errors"]
    assert (
        client_for(users[Role.OPERATOR])
        .get(f"/api/episodes/{ep['refused'].pk}/", {"backend": "x"})
        .status_code
        == 200
    )
    assert client_for(stranger).get(f"/api/episodes/{ep['refused'].pk}/").status_code == 404
    for who in (Role.PRODUCT_MANAGER, Role.ANNOTATOR):  # no review_logs permission: nothing to filter
        assert listed(users[who], "/api/decisions/", backend="local")["count"] == 0
    assert client_for(None).get("/api/episodes/", {"backend": "local"}).status_code == 403


def test_the_schema_documents_backend_and_fault(replies):
    users = replies[0]
    schema = client_for(users[Role.ADMIN]).get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200, schema.content[:500]
    paths = schema.json()["paths"]
    for path in ("/api/decisions/", "/api/decisions/export/", "/api/episodes/"):
        params = {p["name"]: p for p in paths[path]["get"]["parameters"]}
        assert set(params["backend"]["schema"]["enum"]) == {"template", "local", "openai_compatible"}, path
        assert {"any", "none", "refusal", "timeout", "generation_error"} <= set(
            params["fault"]["schema"]["enum"]
        )
