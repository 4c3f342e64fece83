"""In real Chromium: a product manager chooses, on the deploy form, that a routing team hands tickets outside
its catalogue to a person; the deployment's page says so and turns it off again (decision 0040)."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.models import Deployment
from mase_web.deployments.tests.conftest import make_trained_run
from mase_web.deployments.tests.test_browser_deployments import sign_in
from mase_web.deployments.tests.test_deploy_candidates import example

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_product_manager_chooses_the_scope_gate_at_deploy_and_on_the_page(
    live_services, browser_page, tmp_path
):
    page = browser_page
    page.set_default_timeout(30_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "/deployments/", role=Role.PRODUCT_MANAGER)
    (tmp_path / "state.json").write_text("{}")
    run = make_trained_run(project, tmp_path, example("customer_service"))
    page.reload()
    form = page.get_by_role("form", name="Deploy a run")
    form.get_by_label("Trained run").select_option(str(run.pk))
    form.get_by_label("Hand tickets outside the catalogue to a person").check()
    form.get_by_role("button", name="Deploy").click()
    page.wait_for_url(f"{base}/deployments/*/")
    panel = page.get_by_test_id("scope-gate")
    panel.get_by_text("On: a ticket outside the team's intents").wait_for()
    deployment = Deployment.objects.get(run=run)
    assert deployment.scope_gate is True

    panel.get_by_label("Hand tickets outside the catalogue to a person").uncheck()
    panel.get_by_text("Off: the team answers every ticket").wait_for()
    deployment.refresh_from_db()
    assert deployment.scope_gate is False
