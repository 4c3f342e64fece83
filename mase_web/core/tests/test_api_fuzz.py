"""Schema-driven fuzzing of the whole REST API against the real daphne server.

Schemathesis reads the OpenAPI schema the server publishes (/api/schema/) and, for every operation,
sends requests generated from it, valid ones and invalid ones, signed in as a superuser through a token.
Every answer must be no 5xx, carry a documented status and content type, and match the documented body.

Path parameters are narrowed to the objects the test creates (and one id that does not exist), so the
requests reach real objects instead of 404-ing on random ids. DELETE of a workflow only gets workflows
made for it, so it cannot take away the one the other workflow operations work on.
Generation is derandomized (the same requests on every run) and bounded (a few examples per operation).
"""

from __future__ import annotations

import json
import time
import urllib.request
from datetime import UTC, datetime

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from rest_framework.authtoken.models import Token
from schemathesis import GenerationMode
from schemathesis.config import SchemathesisConfig
from schemathesis.errors import FailureGroup

from mase_web.accounts.models import Project
from mase_web.datasets.facade import Dataset, add_rows
from mase_web.deployments.models import (
    Alert,
    BatchJob,
    BreakerTransition,
    Conversation,
    DecisionStep,
    Deployment,
    Episode,
)
from mase_web.feedback.models import (
    Assignment,
    FeedbackItem,
    FeedbackQueue,
    PairwiseJudgement,
    Rating,
    RewardModel,
)
from mase_web.runs.models import Checkpoint, Run, RunEvent
from mase_web.workflows import documents
from mase_web.workflows.models import Workflow, WorkflowVersion

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# A failed sign-in counts against the sign-in throttle of 127.0.0.1, kept in Redis for the whole test
# session: fuzzing it would lock other tests' sign-ins out.
NOT_FUZZED = {"POST /api/token/"}
MISSING = 987_654  # an id no object has: every operation on an object also meets its 404
NOT_AN_ID = "12abc"  # object URLs match digits only, so this is a 404 too (once a ValueError in a query)
EXAMPLES_PER_OPERATION = 6
FUZZ_CONFIG = {
    "generation": {"with-security-parameters": False},  # always signed in with the token below
    "checks": {
        "enabled": False,
        "not_a_server_error": {"enabled": True},
        "status_code_conformance": {"enabled": True},
        "content_type_conformance": {"enabled": True},
        "response_schema_conformance": {"enabled": True},
    },
}


def _snapshot(task: str) -> dict:
    step = {"step": 0, "agent": "router", "action": "refund", "confidence": 0.4, "messages": {"in": []}}
    return {"task": task, "answer": "refund issued", "steps": [step], "meta": {}}


def build_world() -> dict:
    """One object of every kind the API serves, owned by a project the superuser sees."""
    admin = get_user_model().objects.create_superuser("fuzz-admin", "fuzz@example.org", "unused-password")
    project = Project.objects.create(name="fuzzed")
    spec = documents.template("customer_service").spec
    workflow = Workflow.objects.create(project=project, name="Support", spec=spec, created_by=admin)
    WorkflowVersion.objects.create(workflow=workflow, number=1, spec=spec, note="first", author=admin)
    disposable = [
        Workflow.objects.create(project=project, name=f"Scratch {n}", spec=spec, created_by=admin).pk
        for n in range(3)
    ]
    source = {"kind": "workflow", "workflow": workflow.pk}
    now = datetime.now(UTC)
    done = Run.objects.create(
        project=project, name="trained", spec=spec, source=source, state=Run.State.SUCCEEDED, created_by=admin
    )
    Checkpoint.objects.create(run=done, step=2, path="/nonexistent/checkpoint", metrics={"score": 0.5})
    events = [
        ("metrics", {"episode": 1, "score": 0.25, "loss": 1.5}),
        (
            "attention",
            {"step": 1, "mode": "soft", "agents": ["a", "b"], "matrix": [[0, 1], [1, 0]], "graph": {}},
        ),
    ]
    for seq, (kind, payload) in enumerate(events, start=1):
        RunEvent.objects.create(run=done, seq=seq, type=kind, payload=payload, time=now)
    # Resuming runs a spec on the worker: this one fails there at once instead of training.
    failed = Run.objects.create(
        project=project, name="broken", spec={}, state=Run.State.FAILED, error="boom", created_by=admin
    )
    deployment = Deployment.objects.create(
        project=project,
        name="cs",
        run=done,
        checkpoint="/nonexistent/checkpoint",
        spec=spec,
        created_by=admin,
    )
    episode = Episode.objects.create(
        deployment=deployment,
        request_id="fuzz-1",
        task_text="my parcel is late",
        status="completed",
        reward=1.0,
    )
    decision = DecisionStep.objects.create(
        episode=episode,
        step=0,
        agent="router",
        observation="{}",
        action="tracking",
        source="model",
        confidence=0.8,
    )
    transition = BreakerTransition.objects.create(
        deployment=deployment,
        from_state="closed",
        to_state="open",
        reason="operator",
        actor=admin,
        why="test",
    )
    Alert.objects.create(
        deployment=deployment, level="warning", name="circuit_breaker.open", transition=transition
    )
    BatchJob.objects.create(
        deployment=deployment, tickets=[{"id": "t1", "text": "hello"}], total=1, created_by=admin
    )
    rating = FeedbackQueue.objects.create(project=project, name="rate", tags=["rude"], created_by=admin)
    pairwise = FeedbackQueue.objects.create(
        project=project, name="compare", kind="pairwise", created_by=admin
    )
    rated = FeedbackItem.objects.create(
        queue=rating, kind="episode", episode_key="e/1", snapshot=_snapshot("a")
    )
    pair = FeedbackItem.objects.create(
        queue=pairwise, kind="pair", episode_key="e/2", snapshot=_snapshot("b"),
        episode_key_b="e/3", snapshot_b=_snapshot("c"),
    )  # fmt: skip
    for item in (rated, pair):
        Assignment.objects.create(item=item, annotator=admin)
    Rating.objects.create(item=rated, annotator=admin, value=4, tags=["rude"])
    PairwiseJudgement.objects.create(item=pair, annotator=admin, choice="A")
    reward_model = RewardModel.objects.create(queue=rating, created_by=admin)
    conversation = Conversation.objects.create(deployment=deployment, created_by=admin)
    dataset = Dataset.objects.create(project=project, name="tickets", created_by=admin)
    dataset_version = add_rows(
        dataset, [{"text": "where is my parcel", "intents": ["delivery"]}], "uploaded", admin
    )
    return {
        "token": Token.objects.create(user=admin).key,
        "ids": {
            "deployments": [deployment.pk],
            "conversations": [conversation.pk],
            "episodes": [episode.pk],
            "decisions": [decision.pk],
            "datasets": [dataset.pk],
            "dataset-versions": [dataset_version.pk],
            "feedback/queues": [rating.pk, pairwise.pk],
            "feedback/reward-models": [reward_model.pk],
            "projects": [project.pk],  # no memberships: the superuser acts without one
            "runs": [done.pk, failed.pk],
            "workflows": [workflow.pk],
        },
        "disposable_workflows": disposable,
    }


def narrow_path_parameters(schema: dict, world: dict) -> dict:
    """The schema, with each path parameter limited to the test's objects, one missing id and one that is
    not a number."""
    slugs = [t.slug for t in documents.templates()]
    for path, operations in schema["paths"].items():
        resource = path.removeprefix("/api/").split("/{")[0]
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] != "path":
                    continue
                name = parameter["name"]
                if name == "slug":
                    parameter["schema"] = {"type": "string", "enum": [*slugs, "no-such-template"]}
                    continue
                if name == "number":
                    values = [1, MISSING]
                elif method == "delete" and resource == "workflows":
                    values = [*world["disposable_workflows"], MISSING]
                else:
                    values = [*world["ids"][resource], MISSING]
                parameter["schema"] = {"enum": [*values, NOT_AN_ID]}
    return schema


def fuzz(operation, mode, base_url: str, headers: dict) -> list[str]:
    """Send ``EXAMPLES_PER_OPERATION`` generated requests of one mode; every failed check, once each."""
    failures: dict[str, str] = {}

    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def send(case):
        try:
            case.call_and_validate(base_url=base_url, headers=headers, timeout=60)
        except FailureGroup as group:
            for failure in group.exceptions:
                key = f"{operation.label} [{mode.value}]: {failure.title}"
                failures.setdefault(key, f"== {key}\n{str(group)[:3000]}")

    try:
        send()
    except Unsatisfiable:
        if mode is GenerationMode.POSITIVE:
            raise
        # Nothing of this operation can be made invalid (no parameters, no body): no negative requests.
    return list(failures.values())


def test_every_operation_answers_as_documented(live_services):
    world = build_world()
    headers = {"Authorization": f"Token {world['token']}"}
    request = urllib.request.Request(f"{live_services.base_url}/api/schema/?format=json", headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        raw = json.loads(response.read())
    config = SchemathesisConfig.from_dict(FUZZ_CONFIG)
    schema = schemathesis.openapi.from_dict(narrow_path_parameters(raw, world), config=config)
    failures, operations = [], 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        if operation.label in NOT_FUZZED:
            continue
        for mode in GenerationMode:
            started = time.monotonic()
            failures += fuzz(operation, mode, live_services.base_url, headers)
            print(f"{operation.label} {mode.value}: {time.monotonic() - started:.1f}s")
    assert operations >= 60, f"only {operations} operations in the schema"
    assert not failures, f"{len(failures)} failures:\n" + "\n\n".join(failures)


def test_a_multipart_body_with_no_parts_reaches_the_api(live_services):
    """Twisted under daphne once answered such a body itself: a bare 400 with no body (found by the fuzz)."""
    admin = get_user_model().objects.create_superuser("multipart", "m@example.org", "unused-password")
    boundary = "fuzzboundary"
    request = urllib.request.Request(
        f"{live_services.base_url}/api/notifications/ping/",
        data=f"--{boundary}--\r\n".encode(),
        method="POST",
        headers={
            "Authorization": f"Token {Token.objects.create(user=admin).key}",
            "Content-Type": f"multipart/form-data; boundary={boundary}",
        },
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 202 and response.headers["Content-Type"] == "application/json"
        assert set(json.loads(response.read())) == {"task_id"}
