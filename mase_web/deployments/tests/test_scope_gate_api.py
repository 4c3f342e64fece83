"""Each routing deployment chooses whether its scope gate hands tickets outside the catalogue to a person
(``/api/deployments/<id>/scope-gate/``): a new one starts from the site's ``MASE_SCOPE_GATE``; those who may
deploy change it, others may only read it; a team that does not route tickets is refused with a field
error; another project's deployment is not found. (The gate's effect on a served ticket, and the runtime
taking a change on its next ticket: test_routing_scope.py.)"""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.tests.conftest import client_for, make_deployment

pytestmark = pytest.mark.django_db

ROUTING = {"environment": {"name": "customer_service", "params": {}}, "agents": []}
GUESSING = {"environment": {"name": "number_guess", "params": {}}, "agents": []}


def test_the_gate_is_chosen_per_deployment_by_who_may_deploy(team, tmp_path, settings):
    project, users = team
    deployment = make_deployment(project, tmp_path, ROUTING)
    url = f"/api/deployments/{deployment.pk}/scope-gate/"
    manager = client_for(users[Role.PRODUCT_MANAGER])
    assert manager.get(url).json() == {"scope_gate": False, "routing": True}
    answer = manager.post(url, {"scope_gate": True}, format="json")
    assert answer.status_code == 200 and answer.json() == {"scope_gate": True, "routing": True}
    assert manager.get(f"/api/deployments/{deployment.pk}/").json()["scope_gate"] is True

    refused = manager.post(url, {"scope_gate": "sometimes"}, format="json")
    assert refused.status_code == 400 and "scope_gate" in refused.json()["errors"]
    operator = client_for(users[Role.OPERATOR])
    assert operator.get(url).json()["scope_gate"] is True
    assert operator.post(url, {"scope_gate": False}, format="json").status_code == 403
    assert client_for(users["stranger"]).get(url).status_code == 404
    assert client_for(users["stranger"]).post(url, {"scope_gate": False}, format="json").status_code == 404
    deployment.refresh_from_db()
    assert deployment.scope_gate is True

    settings.MASE_SCOPE_GATE = True  # the site's choice is where a new deployment starts
    assert make_deployment(project, tmp_path, ROUTING, name="gated").scope_gate is True


def test_a_team_that_does_not_route_tickets_has_no_gate_to_turn_on(team, tmp_path):
    project, users = team
    deployment = make_deployment(project, tmp_path, GUESSING, name="guessing")
    url = f"/api/deployments/{deployment.pk}/scope-gate/"
    manager = client_for(users[Role.PRODUCT_MANAGER])
    assert manager.get(url).json() == {"scope_gate": False, "routing": False}
    refused = manager.post(url, {"scope_gate": True}, format="json")
    assert refused.status_code == 400 and "routing" in str(refused.json()["errors"]["scope_gate"])
    deployment.refresh_from_db()
    assert deployment.scope_gate is False
