"""In real Chromium: a product manager finds whether the routing deployment hands tickets outside its
catalogue to a person, turns the gate on from its page, and an operator sees the choice without the switch."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.models import Deployment
from mase_web.deployments.tests.conftest import make_deployment
from mase_web.deployments.tests.test_browser_deployments import sign_in
from mase_web.deployments.tests.test_scope_gate_api import ROUTING

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_product_manager_turns_the_scope_gate_on_from_the_page(live_services, browser_page, tmp_path):
    page = browser_page
    page.set_default_timeout(30_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "/deployments/", role=Role.PRODUCT_MANAGER)
    deployment = make_deployment(project, tmp_path, ROUTING, name="shop front")
    page.goto(f"{base}/deployments/{deployment.pk}/")
    panel = page.get_by_test_id("scope-gate")
    panel.get_by_text("Off: the team answers every ticket").wait_for()
    panel.get_by_label("Hand tickets outside the catalogue to a person").check()
    panel.get_by_text("On: a ticket outside the team's intents").wait_for()
    assert Deployment.objects.get(pk=deployment.pk).scope_gate is True
