"""A security probe of the newest surface (evolution policy, shadow, scope gate, reply styles, proposals,
corrections, datasets, intent and rating queues), kept as regression tests for what the apps' own tests
leave out. Built from model rows (no trained team): every test takes well under a second.

- every deployment route of the page's newer panels answers a stranger and an annotator as a missing id (404),
  and refuses an operator's write (403, in the words that name the reserved settings);
- an id in a body is a whole number: 1.5 is not object 1;
- the evolution policy names a key it does not have (a misspelt one changed nothing, with a 200);
- a dataset's description and a queue's guidelines have a length limit, as a workflow's description has.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from mase_web.accounts.models import Membership, Project, Role
from mase_web.datasets.facade import Dataset, add_rows
from mase_web.deployments.evolution_api import DEPLOY_REFUSED
from mase_web.deployments.models import Deployment, Episode
from mase_web.feedback.models import Assignment, FeedbackItem, FeedbackQueue
from mase_web.runs.models import Run
from mase_web.workflows.tests.conftest import template_spec

pytestmark = pytest.mark.django_db

MISSING = 987_654


@pytest.fixture
def world(db):
    """A project with a member in every role and a stranger who administers another project; a deployment
    (no checkpoint on disk: nothing here serves a ticket), an episode, a dataset and an intents queue."""
    User = get_user_model()
    project, elsewhere = Project.objects.create(name="shop"), Project.objects.create(name="elsewhere")
    users = {}
    for role in Role.values:
        users[role] = User.objects.create_user(f"{role}-probe")
        Membership.objects.create(project=project, user=users[role], role=role)
    users["stranger"] = User.objects.create_user("stranger-probe")
    Membership.objects.create(project=elsewhere, user=users["stranger"], role=Role.ADMIN)
    run = Run.objects.create(project=project, name="r", spec=template_spec(), state=Run.State.SUCCEEDED)
    deployment = Deployment.objects.create(
        project=project, name="cs", run=run, checkpoint="/nonexistent", spec=template_spec()
    )
    episode = Episode.objects.create(
        deployment=deployment, request_id="p-1", task_text="late", status="completed"
    )
    dataset = Dataset.objects.create(project=project, name="tickets", created_by=users[Role.ADMIN])
    add_rows(dataset, [{"text": "where is my parcel"}], "uploaded", users[Role.ADMIN])
    queue = FeedbackQueue.objects.create(project=project, name="label", kind=FeedbackQueue.Kind.INTENTS)
    item = FeedbackItem.objects.create(
        queue=queue, kind="row", episode_key="row/1",
        snapshot={"task": "where is my parcel", "catalogue": [{"name": "delivery", "description": ""}]},
    )  # fmt: skip
    Assignment.objects.create(item=item, annotator=users[Role.ANNOTATOR])
    return {"project": project, "users": users, "deployment": deployment, "episode": episode,
            "dataset": dataset, "item": item}  # fmt: skip


def client(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


# the deployment page's newer panels: (method, path under /api/deployments/<id>/, body of a valid write)
PANEL_ROUTES = [
    ("get", "evolution/", None),
    ("post", "evolution/", {"correction_weight": 2}),
    ("get", "generations/export/", None),
    ("get", "shadow/", None),
    ("delete", "shadow/", None),
    ("post", "generations/1/shadow/", None),
    ("get", "style-explore/", None),
    ("post", "style-explore/", {"style_explore": 0.1}),
    ("get", "scope-gate/", None),
    ("post", "scope-gate/", {"scope_gate": True}),
    ("get", "intent-proposals/", None),
]


@pytest.mark.parametrize("method, path, body", PANEL_ROUTES)
@pytest.mark.parametrize("who", ["stranger", Role.ANNOTATOR])
def test_a_deployment_outside_what_one_sees_is_a_missing_one(world, who, method, path, body):
    c = client(world["users"][who])
    seen = getattr(c, method)(f"/api/deployments/{world['deployment'].pk}/{path}", body, format="json")
    missing = getattr(c, method)(f"/api/deployments/{MISSING}/{path}", body, format="json")
    assert seen.status_code == missing.status_code == 404, seen.content
    assert seen.json()["detail"].replace(str(world["deployment"].pk), "N") == missing.json()[
        "detail"
    ].replace(str(MISSING), "N")


@pytest.mark.parametrize("method, path, body", [r for r in PANEL_ROUTES if r[0] != "get"])
def test_an_operator_reads_the_panels_but_changes_nothing_on_them(world, method, path, body):
    deployment = world["deployment"]
    before = Deployment.objects.filter(pk=deployment.pk).values().get()
    answer = getattr(client(world["users"][Role.OPERATOR]), method)(
        f"/api/deployments/{deployment.pk}/{path}", body, format="json"
    )
    assert answer.status_code == 403 and answer.json()["detail"] == DEPLOY_REFUSED
    assert Deployment.objects.filter(pk=deployment.pk).values().get() == before


@pytest.mark.parametrize(
    "url, body, field",
    [
        ("/api/feedback/intent-labels/", lambda w: {"item": w["item"].pk + 0.5, "intents": []}, "item"),
        ("/api/feedback/ratings/", lambda w: {"item": w["item"].pk + 0.5, "value": 3}, "item"),
        ("/api/datasets/", lambda w: {"project": w["project"].pk + 0.5, "name": "n"}, "project"),
    ],
)
def test_an_id_in_a_body_is_a_whole_number(world, url, body, field):
    who = Role.ANNOTATOR if "feedback" in url else Role.PRODUCT_MANAGER
    answer = client(world["users"][who]).post(url, body(world), format="json")
    assert answer.status_code == 400, answer.content
    assert "whole number" in answer.json()["errors"][field][0]
    assert world["item"].intent_labels.count() == 0 and Dataset.objects.count() == 1


@pytest.mark.parametrize("body", [{"correction_wieght": 5}, {"evolve_after": None}, {"margin": 0.1, "x": 1}])
def test_a_name_the_evolution_policy_does_not_have_is_a_400_on_it(world, body):
    deployment = world["deployment"]
    path = f"/api/deployments/{deployment.pk}/evolution/"
    answer = client(world["users"][Role.PRODUCT_MANAGER]).post(path, body, format="json")
    assert answer.status_code == 400, answer.content
    errors = answer.json()["errors"]
    assert set(errors) == set(body) - {"margin"}
    assert all("not a setting of the evolution policy" in errors[name][0] for name in errors)
    deployment.refresh_from_db()
    assert not deployment.evolution  # nothing stored, the known value beside it neither


@pytest.mark.parametrize(
    "method, url, field, limit",
    [
        ("post", "/api/datasets/", "description", 5000),
        ("patch", "/api/datasets/{dataset}/", "description", 5000),
        ("post", "/api/feedback/queues/", "guidelines", 20_000),
    ],
)
def test_a_description_has_a_length_limit(world, method, url, field, limit):
    """As a workflow's description has (5000): a megabyte of text was stored and sent with every list."""
    pm = client(world["users"][Role.PRODUCT_MANAGER])
    url = url.format(dataset=world["dataset"].pk)
    body = {"project": world["project"].pk, "name": "big", "kind": "rating"}
    answer = getattr(pm, method)(url, {**body, field: "x" * (limit + 1)}, format="json")
    assert answer.status_code == 400, answer.content[:200]
    assert f"no more than {limit}" in answer.json()["errors"][field][0]
    assert getattr(pm, method)(url, {**body, field: "x" * limit}, format="json").status_code in (200, 201)
