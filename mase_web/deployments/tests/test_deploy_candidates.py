"""The deploy form's list: succeeded training runs, each deployable or with the reason it is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.tests.conftest import client_for, make_trained_run
from mase_web.runs.models import Checkpoint, Run

pytestmark = pytest.mark.django_db
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def example(name: str) -> dict:
    return json.loads((EXAMPLES / f"{name}.json").read_text())


def test_candidates_say_why_a_run_cannot_be_deployed(team, tmp_path):
    project, users = team
    reinforce = make_trained_run(project, None, example("number_guessing"))
    bare = make_trained_run(project, None, example("customer_service"))
    ready = make_trained_run(project, None, example("customer_service"))
    checkpoint = tmp_path / "last"
    checkpoint.mkdir()
    (checkpoint / "state.json").write_text("{}")
    Checkpoint.objects.create(run=ready, step=2, path=str(checkpoint))
    make_trained_run(project, None, example("customer_service"), state=Run.State.FAILED)  # not listed

    pm = client_for(users[Role.PRODUCT_MANAGER])
    rows = {r["id"]: r for r in pm.get("/api/deployments/candidates/").json()}
    assert set(rows) == {reinforce.pk, bare.pk, ready.pk}
    assert rows[ready.pk]["deployable"] is True and rows[ready.pk]["why"] is None
    assert rows[reinforce.pk]["deployable"] is False and "reinforce_comm" in rows[reinforce.pk]["why"]
    assert rows[bare.pk]["deployable"] is False and "no checkpoint" in rows[bare.pk]["why"]
    # the refusal after a click says the same
    refused = pm.post("/api/deployments/", {"run": reinforce.pk}, format="json")
    assert refused.status_code == 400 and refused.json()["errors"]["run"] == [rows[reinforce.pk]["why"]]
    # those who may not deploy see no candidates
    assert client_for(users[Role.OPERATOR]).get("/api/deployments/candidates/").json() == []


def test_a_deployable_candidate_carries_its_own_threshold_and_whether_it_has_a_preview(team, tmp_path):
    """The deploy form shows the run's own breaker threshold (not a made-up default) and asks for a fallback
    preview only where the environment has a dev split of tickets to replay."""
    project, users = team
    checkpoint = tmp_path / "last"
    checkpoint.mkdir()
    (checkpoint / "state.json").write_text("{}")
    routing, talking = example("customer_service"), example("interactive_support")
    routing["circuit_breaker"]["confidence_threshold"] = 0.35
    routing_run = make_trained_run(project, checkpoint, routing)
    talking_run = make_trained_run(project, checkpoint, talking)
    rows = {
        r["id"]: r for r in client_for(users[Role.PRODUCT_MANAGER]).get("/api/deployments/candidates/").json()
    }
    assert (
        rows[routing_run.pk]["confidence_threshold"] == 0.35
        and rows[routing_run.pk]["fallback_preview"] is True
    )
    assert rows[talking_run.pk]["confidence_threshold"] == talking["circuit_breaker"]["confidence_threshold"]
    assert rows[talking_run.pk]["fallback_preview"] is False
    # a routing team's scope gate starts where the site's does, and the form may choose it (decision 0040)
    assert rows[routing_run.pk]["routing"] is True and rows[routing_run.pk]["scope_gate"] is False
    assert rows[talking_run.pk]["routing"] is False and rows[talking_run.pk]["scope_gate"] is False
    pm = client_for(users[Role.PRODUCT_MANAGER])
    gated = pm.post("/api/deployments/", {"run": routing_run.pk, "scope_gate": True}, format="json")
    assert gated.status_code == 201, gated.content
    assert gated.json()["scope_gate"] is True and gated.json()["routing"] is True
    plain = pm.post("/api/deployments/", {"run": routing_run.pk}, format="json")
    assert plain.status_code == 201 and plain.json()["scope_gate"] is False
