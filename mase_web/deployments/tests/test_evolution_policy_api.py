"""The evolution policy a product manager sets on the deployment page: every field the policy has, the
correction weight included, is set through the API with a field-level 400 for a bad value."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.evolution import policy_of
from mase_web.deployments.models import Deployment
from mase_web.deployments.tests.conftest import client_for
from mase_web.deployments.tests.test_evolution import deployed  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db


def test_the_correction_weight_is_set_through_the_policy_api_with_its_bounds(deployed):  # noqa: F811
    deployment, users = deployed
    path = f"/api/deployments/{deployment.pk}/evolution/"
    pm = client_for(users[Role.PRODUCT_MANAGER])
    assert pm.get(path).json()["correction_weight"] == 1
    answer = pm.post(path, {"correction_weight": 3}, format="json")
    assert answer.status_code == 200, answer.content
    assert answer.json()["correction_weight"] == 3
    assert policy_of(Deployment.objects.get(pk=deployment.pk)).correction_weight == 3
    bad = pm.post(path, {"correction_weight": 0}, format="json")
    assert bad.status_code == 400 and set(bad.json()["errors"]) == {"correction_weight"}
