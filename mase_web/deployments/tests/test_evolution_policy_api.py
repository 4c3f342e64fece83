"""The evolution policy a product manager sets on the deployment page: every field the policy has, the
correction weight included, is set through the API with a field-level 400 for a bad value; and the lineage
says until when the minimum interval holds Evolve back."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from mase_web.accounts.models import Role
from mase_web.deployments.evolution import policy_of
from mase_web.deployments.models import Deployment, Generation
from mase_web.deployments.tests.conftest import client_for
from mase_web.deployments.tests.test_evolution import deployed, give_slice  # noqa: F401  (deployed: a fixture)

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


def test_the_lineage_says_when_evolve_is_possible_again_within_the_minimum_interval(deployed):  # noqa: F811
    deployment, users = deployed
    give_slice(deployment)
    pm = client_for(users[Role.PRODUCT_MANAGER])
    lineage = f"/api/deployments/{deployment.pk}/generations/"
    assert pm.get(lineage).json()["evolve_after"] is None  # no challenger yet: nothing to wait for
    assert pm.post(f"/api/deployments/{deployment.pk}/evolve/").status_code == 202
    Generation.objects.filter(deployment=deployment, number=2).update(phase=Generation.Phase.FAILED)
    started = Generation.objects.get(deployment=deployment, number=2).created_at
    after = datetime.fromisoformat(pm.get(lineage).json()["evolve_after"])
    assert after == started + timedelta(seconds=policy_of(deployment).min_interval_s)
    assert pm.post(f"/api/deployments/{deployment.pk}/evolve/").status_code == 429  # as the API refuses
    Generation.objects.filter(pk=Generation.objects.get(deployment=deployment, number=2).pk).update(
        created_at=timezone.now() - timedelta(hours=2)
    )
    assert pm.get(lineage).json()["evolve_after"] is None  # the interval has passed
