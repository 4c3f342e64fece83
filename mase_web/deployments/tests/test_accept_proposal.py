"""Accepting a proposed intent puts it on the canvas of the deployment's design (a draft, never published):
the shipped catalogue is written out with the new intent, the chosen agent owns it, accepting twice changes
nothing; product managers only, names checked, other projects 404."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.tests.conftest import client_for
from mase_web.deployments.tests.test_corrections import logged_episode, with_reviewer
from mase_web.workflows.models import Workflow

pytestmark = pytest.mark.django_db

BODY = {"name": "double_charge", "description": "charged twice for one order", "owner": "dispute_mediator"}


def test_a_product_manager_puts_a_proposed_intent_on_the_designs_canvas(team):
    project, users = team
    episode, _ = logged_episode(project)
    deployment = episode.deployment
    path = f"/api/deployments/{deployment.pk}/intent-proposals/accept/"
    pm = client_for(users[Role.PRODUCT_MANAGER])
    answer = pm.post(path, BODY, format="json")
    assert answer.status_code == 201, answer.content
    workflow = Workflow.objects.get(pk=answer.json()["workflow"])
    assert answer.json()["designer"] == f"/workflows/{workflow.pk}/" and workflow.project_id == project.pk
    assert not workflow.versions.exists()  # a draft for the designer, nothing published or trained
    intents = workflow.spec["environment"]["params"]["intents"]
    assert intents[-1] == {"name": "double_charge", "description": "charged twice for one order"}
    assert "order_tracking" in answer.json()["intents"]  # the shipped catalogue written out beside it
    owners = {a["id"]: a["intents"] for a in workflow.spec["agents"]}
    assert owners["dispute_mediator"][-1] == "double_charge" and "double_charge" not in owners["logistics"]

    deployment.workflow = workflow
    deployment.save(update_fields=["workflow"])
    again = pm.post(path, BODY, format="json")
    assert again.status_code == 201 and again.json()["workflow"] == workflow.pk
    workflow.refresh_from_db()
    assert [i["name"] for i in workflow.spec["environment"]["params"]["intents"]].count("double_charge") == 1


def test_accepting_is_for_those_who_design_with_field_errors(team):
    project, users = team
    episode, _ = logged_episode(project)
    path = f"/api/deployments/{episode.deployment.pk}/intent-proposals/accept/"
    assert client_for(users[Role.OPERATOR]).post(path, BODY, format="json").status_code == 403
    assert client_for(users["stranger"]).post(path, BODY, format="json").status_code == 404
    pm = client_for(users[Role.PRODUCT_MANAGER])
    bad = pm.post(path, {"name": "Double Charge", "description": "x", "owner": "nobody"}, format="json")
    assert bad.status_code == 400 and set(bad.json()["errors"]) == {"name", "owner"}
    # a reviewer owns no intents: the designer's validator would refuse the draft this made
    with_reviewer(episode.deployment)
    reviewer = pm.post(path, {**BODY, "owner": "quality_supervisor"}, format="json")
    assert reviewer.status_code == 400 and "owns no intents" in reviewer.json()["errors"]["owner"][0]
    known = pm.post(path, {**BODY, "name": "order_tracking"}, format="json")
    assert known.status_code == 400 and "already" in known.json()["errors"]["name"][0]
    assert not Workflow.objects.exists()
