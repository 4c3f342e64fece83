"""In real Chromium: a product manager finds the deployment's share of explored reply styles on its page and
changes it; a share above the bound is refused on the field (decision 0035)."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.models import Deployment
from mase_web.deployments.tests.conftest import make_deployment, team_spec
from mase_web.deployments.tests.test_browser_deployments import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_product_manager_sets_the_explored_share_on_the_page(
    live_services, browser_page, trained_checkpoint, tiny_backbone_dir
):
    page = browser_page
    page.set_default_timeout(30_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "/deployments/", role=Role.PRODUCT_MANAGER)
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir), name="shop front")
    page.goto(f"{base}/deployments/{deployment.pk}/")
    panel = page.get_by_test_id("style-explore")
    panel.get_by_text("Off: every reply is written in the writer's style").wait_for()
    field = panel.get_by_label("Explored share (%)")
    field.fill("30")
    panel.get_by_role("button", name="Save").click()
    panel.get_by_role("alert").get_by_text("(0 to 20 percent)").wait_for()  # in the field's unit
    field.fill("10")
    panel.get_by_role("button", name="Save").click()
    panel.get_by_text("10% of replies are written in another style and marked explored").wait_for()
    assert Deployment.objects.get(pk=deployment.pk).style_explore == pytest.approx(0.1)
