"""Every id a request body (or query) can carry, pointed at another project's object.

The caller is an admin of their own project — every right there — and a stranger to the other. For each
id-bearing field we send the other project's real id and an id that exists nowhere. Both must be refused
the same way (status and message, but for the number), so a body can neither read another project's
objects nor learn which ids exist; nothing of the other project may appear in the answer, and nothing
may be created.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from mase_web.accounts.models import Membership, Project, Role
from mase_web.datasets.facade import Dataset, add_rows
from mase_web.deployments.models import DecisionStep, Deployment, Episode
from mase_web.feedback.models import Assignment, FeedbackItem, FeedbackQueue
from mase_web.runs.models import Checkpoint, Run
from mase_web.workflows.models import Workflow, WorkflowVersion

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SECRET = "theirs-secret-prompt-7731"
MISSING = 987_654


def _spec(slug: str = "customer_service") -> dict:
    return json.loads((EXAMPLES / f"{slug}.json").read_text())


@pytest.fixture
def world():
    User = get_user_model()
    mine, theirs = Project.objects.create(name="mine"), Project.objects.create(name="theirs")
    me, owner = User.objects.create_user("attacker"), User.objects.create_user("owner")
    Membership.objects.create(project=mine, user=me, role=Role.ADMIN)
    Membership.objects.create(project=theirs, user=owner, role=Role.ADMIN)

    secret_spec = _spec()
    secret_spec["agents"][0]["prompt"] = SECRET
    workflow = Workflow.objects.create(project=theirs, name="Their team", spec=secret_spec, created_by=owner)
    WorkflowVersion.objects.create(workflow=workflow, number=1, spec=secret_spec, note="v1", author=owner)
    run = Run.objects.create(project=theirs, name="their run", spec=secret_spec, state=Run.State.SUCCEEDED)
    last = run.out_dir / "checkpoints" / "mappo" / "last"  # a real checkpoint: its existence must not show
    last.mkdir(parents=True, exist_ok=True)
    (last / "state.json").write_text("{}")
    (last / "model.safetensors").write_bytes(b"")
    checkpoint = Checkpoint.objects.create(run=run, step=1, path=str(last))
    deployment = Deployment.objects.create(
        project=theirs, name="their deployment", run=run, checkpoint=checkpoint.path, spec=secret_spec
    )
    episode = Episode.objects.create(deployment=deployment, request_id="r1", task_text=SECRET)
    DecisionStep.objects.create(episode=episode, step=0, agent="a", observation=SECRET, action="x")
    queue = FeedbackQueue.objects.create(project=theirs, name="their queue", kind=FeedbackQueue.Kind.RATING)
    pair_queue = FeedbackQueue.objects.create(project=theirs, name="pairs", kind=FeedbackQueue.Kind.PAIRWISE)
    item = FeedbackItem.objects.create(
        queue=queue, kind="episode", episode_key="k", snapshot={"task": SECRET}
    )
    pair = FeedbackItem.objects.create(
        queue=pair_queue, kind="pair", episode_key="a", snapshot={"task": SECRET},
        episode_key_b="b", snapshot_b={"task": SECRET},
    )  # fmt: skip
    Assignment.objects.create(item=item, annotator=owner)
    Assignment.objects.create(item=pair, annotator=owner)
    dataset = Dataset.objects.create(
        project=theirs, name="their dataset", description=SECRET, created_by=owner
    )
    their_version = add_rows(dataset, [{"text": SECRET}], "uploaded")

    # The attacker's own objects, so that only the foreign id is wrong in each request.
    my_run = Run.objects.create(project=mine, name="mine", spec=_spec(), state=Run.State.SUCCEEDED)
    my_queue = FeedbackQueue.objects.create(project=mine, name="my queue", kind=FeedbackQueue.Kind.RATING)
    my_labels = FeedbackQueue.objects.create(project=mine, name="label", kind=FeedbackQueue.Kind.INTENTS)
    my_version = add_rows(Dataset.objects.create(project=mine, name="mine"), [{"text": "hi"}], "uploaded")
    my_deployment = Deployment.objects.create(
        project=mine, name="mine", run=my_run, checkpoint="/x", spec=_spec()
    )
    my_episode = Episode.objects.create(
        deployment=my_deployment, request_id="m1", task_text="t", status="completed"
    )
    my_decision = DecisionStep.objects.create(
        episode=my_episode, step=0, agent="a", observation="{}", action="x", review_status="wrong"
    )
    ids = {
        "workflow": workflow.pk, "run": run.pk, "checkpoint": checkpoint.pk, "deployment": deployment.pk,
        "item": item.pk, "pair": pair.pk, "project": theirs.pk, "dataset": dataset.pk, "rating_queue": queue.pk,
        "dataset_version": their_version.pk,
        # the caller's own, named in URLs and bodies beside the foreign id
        "my_labels": my_labels.pk, "my_version": my_version.pk, "my_decision": my_decision.pk,
    }  # fmt: skip
    return me, mine, my_run, my_queue, ids


def _teacher_spec(run_id: int) -> dict:
    spec = _spec()
    spec["training"] |= {"teacher": "checkpoint", "teacher_checkpoint": str(run_id)}
    return spec


# name: (method, url, body or query builder(foreign id, mine) , which of the world's ids is foreign)
CASES = {
    "launch: workflow of another project": (
        "post", "/api/runs/", lambda i, m: {"project": m["project"], "name": "x", "workflow": i}, "workflow"),
    "launch: workflow, project left out": ("post", "/api/runs/", lambda i, m: {"name": "x", "workflow": i}, "workflow"),
    "launch: workflow version": (
        "post", "/api/runs/", lambda i, m: {"name": "x", "workflow": i, "version": 1}, "workflow"),
    "launch: project": ("post", "/api/runs/", lambda i, m: {"project": i, "name": "x", "spec": _spec()}, "project"),
    "launch: checkpoint teacher": (
        "post", "/api/runs/", lambda i, m: {"project": m["project"], "name": "x", "spec": _teacher_spec(i)}, "run"),
    "deploy: run": ("post", "/api/deployments/", lambda i, m: {"run": i}, "run"),
    "deploy: checkpoint": ("post", "/api/deployments/", lambda i, m: {"run": m["run"], "checkpoint": i}, "checkpoint"),
    "workflow create: project": ("post", "/api/workflows/", lambda i, m: {"project": i, "name": "x"}, "project"),
    "workflow import: project": (
        "post", "/api/workflows/import/", lambda i, m: {"project": i, "spec": _spec("number_guessing")}, "project"),
    "queue create: project": (
        "post", "/api/feedback/queues/", lambda i, m: {"project": i, "name": "q", "kind": "rating"}, "project"),
    "queue update: project": ("patch", "/api/feedback/queues/{queue}/", lambda i, m: {"project": i}, "project"),
    "enqueue deployment": (
        "post", "/api/feedback/queues/{queue}/enqueue-deployment/", lambda i, m: {"deployment": i}, "deployment"),
    "rating: item": ("post", "/api/feedback/ratings/", lambda i, m: {"item": i, "value": 3}, "item"),
    "judgement: item": ("post", "/api/feedback/judgements/", lambda i, m: {"item": i, "choice": "a"}, "pair"),
    "decisions: deployment": ("get", "/api/decisions/", lambda i, m: {"deployment": i}, "deployment"),
    "decisions: run": ("get", "/api/decisions/", lambda i, m: {"run": i}, "run"),
    "episodes: deployment": ("get", "/api/episodes/", lambda i, m: {"deployment": i}, "deployment"),
    "episodes: run": ("get", "/api/episodes/", lambda i, m: {"run": i}, "run"),
    "compare: run": ("get", "/api/runs/compare/", lambda i, m: {"ids": f"{m['run']},{i}"}, "run"),
    # list filters: an id is matched, never looked up (a lookup told a missing id from a foreign one)
    "datasets: project": ("get", "/api/datasets/", lambda i, m: {"project": i}, "project"),
    "dataset versions: dataset": ("get", "/api/dataset-versions/", lambda i, m: {"dataset": i}, "dataset"),
    "deployments: project": ("get", "/api/deployments/", lambda i, m: {"project": i}, "project"),
    "deployments: run": ("get", "/api/deployments/", lambda i, m: {"run": i}, "run"),
    "queues: project": ("get", "/api/feedback/queues/", lambda i, m: {"project": i}, "project"),
    "runs: project": ("get", "/api/runs/", lambda i, m: {"project": i}, "project"),
    "workflows: project": ("get", "/api/workflows/", lambda i, m: {"project": i}, "project"),
    "annotate a decision: queue": ("post", "/api/decisions/{my_decision}/annotate/", lambda i, m: {"queue": i}, "rating_queue"),
    "label a version: version": ("post", "/api/feedback/queues/{my_labels}/enqueue-dataset/", lambda i, m: {"version": i}, "dataset_version"),
    "label a version: deployment": (
        "post", "/api/feedback/queues/{my_labels}/enqueue-dataset/",
        lambda i, m: {"version": m["version"], "deployment": i}, "deployment"),
}  # fmt: skip

COUNTED = (Run, Workflow, Deployment, FeedbackQueue, FeedbackItem, Episode)


def _send(client, method, url, payload):
    if method == "get":
        return client.get(url, payload)
    return getattr(client, method)(url, payload, format="json")


@pytest.mark.parametrize("case", list(CASES))
def test_a_foreign_id_answers_as_a_missing_one(world, case):
    me, mine, my_run, my_queue, ids = world
    method, url, build, field = CASES[case]
    url = url.format(queue=my_queue.pk, **ids)
    own = {"project": mine.pk, "run": my_run.pk, "version": ids["my_version"]}
    client = APIClient()
    client.force_login(me)
    before = [model.objects.count() for model in COUNTED]

    foreign = _send(client, method, url, build(ids[field], own))
    missing = _send(client, method, url, build(MISSING, own))

    refused = 400 <= foreign.status_code < 500
    assert refused or (method == "get" and foreign.status_code == 200), (
        case,
        foreign.content[:400],
    )  # a list: none
    assert foreign.status_code == missing.status_code, (case, foreign.content[:400], missing.content[:400])
    assert SECRET not in foreign.content.decode()
    for name in ("Their team", "their run", "their deployment", "their queue", "theirs"):
        assert f'"{name}"' not in foreign.content.decode() and f"'{name}'" not in foreign.content.decode()
    # the same words for a foreign id as for one that exists nowhere
    anonymise = lambda r: re.sub(r"\d+", "N", r.content.decode())  # noqa: E731
    assert anonymise(foreign) == anonymise(missing), (case, foreign.content[:400], missing.content[:400])
    assert [model.objects.count() for model in COUNTED] == before


def test_a_workflow_launches_only_in_its_own_project(world):
    """A user who may read two projects still cannot launch one project's workflow in the other."""
    me, mine, _, _, ids = world
    Membership.objects.create(project_id=ids["project"], user=me, role=Role.PRODUCT_MANAGER)
    client = APIClient()
    client.force_login(me)
    response = client.post(
        "/api/runs/", {"project": mine.pk, "name": "x", "workflow": ids["workflow"]}, format="json"
    )
    assert response.status_code == 400
    assert "belongs to another project" in response.json()["errors"]["workflow"][0]
    assert Run.objects.filter(project=mine, name="x").count() == 0
