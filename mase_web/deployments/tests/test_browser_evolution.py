"""In real Chromium: a product manager finds the deployment's generations on its page, promotes the
challenger with one click and rolls it back with another; the timeline, its curve and the serving run
follow, and a shadow run beside the champion ends when it is promoted."""

from __future__ import annotations

import re
import shutil

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.evolution import first_generation
from mase_web.deployments.models import Deployment, Generation
from mase_web.deployments.tests.conftest import make_deployment, make_trained_run, team_spec
from mase_web.deployments.tests.test_browser_deployments import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_product_manager_promotes_a_challenger_and_rolls_it_back(
    live_services, browser_page, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    page = browser_page
    page.set_default_timeout(30_000)
    base = live_services.base_url
    user, project = sign_in(page, base, "/deployments/", role=Role.PRODUCT_MANAGER)
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir), name="shop front")
    copy = tmp_path / "generation-2"
    shutil.copytree(trained_checkpoint, copy)
    challenger_run = make_trained_run(project, copy, deployment.spec)
    Generation.objects.create(
        deployment=deployment, number=2, run=challenger_run, checkpoint=str(copy), spec=deployment.spec,
        parent=first_generation(deployment), phase=Generation.Phase.READY, status=Generation.Status.CANDIDATE,
        comparison={"tickets": 120, "champion": 0.78, "challenger": 0.83, "gain": 0.05, "promote": False},
        reason="within noise on 120 tickets", data={"rows_added": 40},
    )  # fmt: skip
    page.goto(f"{base}/deployments/{deployment.pk}/")
    table = page.get_by_test_id("generations")
    row2 = page.get_by_test_id("generation-2")
    row2.get_by_text("83.0 % (+5.0 vs 1 on 120 tickets)").wait_for()
    assert (
        "40 new labelled tickets (corrections and annotations)" in row2.inner_text()
        and "within noise" in row2.inner_text()
    )
    curve = page.get_by_test_id("generation-curve")  # the slice's figure across generations, drawn
    assert "1: 78.0 %, 2: 83.0 %" in curve.get_attribute("aria-label")
    assert "Evolves by hand, never within 1 h" in page.get_by_test_id("evolution-policy").inner_text()
    # no ticket reviewed yet: the slice is empty, so Evolve is off and the page says why and what it needs
    assert page.get_by_role("button", name="Evolve").is_disabled()
    refusal = page.get_by_test_id("evolve-refusal").inner_text()
    assert "the evaluation slice is empty" in refusal and "at least 100 slice tickets" in refusal
    # generation 2 started just now: within the minimum interval (1 h), and the page says until when
    assert re.search(
        r"next evolution possible at (\d{4}-\d\d-\d\d )?\d\d:\d\d",
        page.get_by_test_id("evolve-wait").inner_text(),
    )
    assert page.get_by_role("link", name="Review this deployment's decisions").count() == 0  # a 403 for a PM
    # the policy in words, and a form for it: a bad value's error beside its field, a good one saved
    implication = page.get_by_test_id("policy-implication")
    assert (
        "at least 100 slice tickets; one reviewed ticket in 5 joins the slice, so about 500"
        in implication.inner_text()
    )
    page.get_by_text("Change the evolution policy").click()
    policy = page.get_by_test_id("policy-form")
    policy.locator("input[name=every_s]").fill("30")
    policy.get_by_role("button", name="Save the policy").click()
    assert "at most hourly" in page.get_by_test_id("policy-error-every_s").inner_text()
    policy.locator("input[name=every_s]").fill("0")
    policy.locator("input[name=min_tickets]").fill("20")
    policy.get_by_role("button", name="Save the policy").click()
    implication.get_by_text("at least 20 slice tickets").wait_for()
    assert Deployment.objects.get(pk=deployment.pk).evolution["min_tickets"] == 20
    said = page.get_by_role("region", name="Generations").inner_text()  # the slice in words a newcomer reads
    assert re.search(
        r"judged on the evaluation slice: \d+ reviewed tickets? \(confirmed or corrected in Review\) that no generation\s+trains on",
        said,
    )
    export = page.get_by_role("link", name="CSV")
    assert export.get_attribute("href") == f"/api/deployments/{deployment.pk}/generations/export/?as=csv"
    row2.get_by_role("button", name="Run in shadow").click()  # beside the champion, silently
    page.get_by_test_id("shadow").get_by_text("Generation 2 in shadow").wait_for()
    assert "It has answered no live ticket yet;" in page.get_by_test_id("shadow").inner_text()
    row2.get_by_text("shadow", exact=True).wait_for()
    row2.get_by_role("button", name="Promote").click()
    page.get_by_test_id("shadow").wait_for(state="detached")  # serving now: no longer a shadow
    page.get_by_test_id("generation-1").get_by_text("retired").wait_for()
    assert "champion" in row2.inner_text() and user.username in row2.inner_text()
    assert Deployment.objects.get(pk=deployment.pk).run_id == challenger_run.pk
    page.get_by_role("button", name="Roll back").click()
    row2.get_by_text("rejected").wait_for()
    assert "champion" in page.get_by_test_id("generation-1").inner_text()
    assert Deployment.objects.get(pk=deployment.pk).run_id == deployment.run_id
    assert table.is_visible()
