"""Launching a published workflow version with an overridden episode budget keeps the workflow link
(found by ``?workflow=``) and records the override in the run's source."""

import pytest

from mase_web.accounts.models import Role
from mase_web.runs.tests.conftest import client_for, quick_spec

pytestmark = pytest.mark.django_db


def test_an_overridden_budget_keeps_the_workflow_link_and_is_recorded(team):
    from mase_web.workflows.models import Workflow, WorkflowVersion

    project, users = team
    workflow = Workflow.objects.create(project=project, name="guessers", spec=quick_spec())
    WorkflowVersion.objects.create(workflow=workflow, number=1, spec=quick_spec(episodes=64), note="first")
    client = client_for(users[Role.PRODUCT_MANAGER])
    body = {"name": "longer", "workflow": workflow.pk, "version": 1, "overrides": {"episodes": 512}}
    launched = client.post("/api/runs/", body, format="json")
    assert launched.status_code == 201, launched.content
    run = launched.json()
    assert run["spec"]["training"]["episodes"] == 512
    assert run["source"] == {
        "kind": "workflow",
        "workflow": workflow.pk,
        "workflow_name": "guessers",
        "version": 1,
        "overrides": {"episodes": 512},
    }
    listed = [r["id"] for r in client.get(f"/api/runs/?workflow={workflow.pk}").json()["results"]]
    assert listed == [run["id"]]
    # the published version itself is untouched
    assert WorkflowVersion.objects.get(workflow=workflow, number=1).spec["training"]["episodes"] == 64


def test_a_spec_launch_records_its_overrides_too(team):
    project, users = team
    body = {"project": project.pk, "name": "spec", "spec": quick_spec(), "overrides": {"episodes": 128}}
    run = client_for(users[Role.PRODUCT_MANAGER]).post("/api/runs/", body, format="json").json()
    assert run["spec"]["training"]["episodes"] == 128
    assert run["source"] == {"kind": "spec", "overrides": {"episodes": 128}}


@pytest.mark.parametrize("overrides", [{"episodes": 0}, {"episodes": "many"}, {"episodes": 10**12}])
def test_bad_overrides_are_400s_naming_the_field(team, overrides):
    project, users = team
    body = {"project": project.pk, "name": "bad", "spec": quick_spec(), "overrides": overrides}
    response = client_for(users[Role.PRODUCT_MANAGER]).post("/api/runs/", body, format="json")
    assert response.status_code == 400
    assert "overrides.episodes" in response.json()["errors"]
