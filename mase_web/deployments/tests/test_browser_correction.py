"""In real Chromium: an operator corrects a ticket in review (the right intents and owner) and finds it in
the deployment's dataset, marked as corrected in review by them."""

from __future__ import annotations

import re

import pytest

from conftest import ARTIFACTS
from mase_web.deployments.tests.test_browser_deployments import sign_in
from mase_web.deployments.tests.test_corrections import logged_episode

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def open_correction(page, base, path, text):
    """Signed in as an operator on ``path``, a logged ticket saying ``text``: its review and open correction form."""
    page.set_default_timeout(20_000)
    operator, project = sign_in(page, base, path)
    episode, _ = logged_episode(project, text=text)
    page.reload()
    review = page.get_by_test_id(f"episode-review-{episode.pk}")
    review.get_by_role("button", name="correct…").click()
    return operator, episode, review, review.get_by_role("form", name="Correct")


def test_an_operator_corrects_a_ticket_and_sees_it_in_the_dataset(live_services, browser_page):
    page = browser_page
    base = live_services.base_url
    operator, episode, review, form = open_correction(
        page, base, "/review/", "The lamp came cracked and two weeks late"
    )
    form.get_by_text("An item that arrived broken, cracked", exact=False).wait_for()  # each with its meaning
    form.get_by_role("checkbox", name=re.compile("^damaged_item")).check()
    form.get_by_role("checkbox", name=re.compile("^delivery_delay")).check()
    form.get_by_text("Owned now by logistics, dispute_mediator.").wait_for()
    form.get_by_label("Right owner").select_option("dispute_mediator")
    form.get_by_label("Better reply (optional)").fill("Sorry: a new lamp is on its way.")
    page.screenshot(path=str(ARTIFACTS / "review-correction.png"), full_page=True)
    form.get_by_role("button", name="Save correction").click()

    review.get_by_text(re.compile(r'Corrected: the ticket joined dataset ".*" \(version 1\)\.')).wait_for()
    review.get_by_text("wrong", exact=True).wait_for()  # the ticket's decisions are marked wrong
    review.get_by_role("link", name="Open the dataset").click()
    page.wait_for_url(re.compile(r"/datasets/\d+/$"))
    rows = page.get_by_test_id("dataset-rows")
    rows.get_by_text("The lamp came cracked and two weeks late").wait_for()
    assert f"corrected in review by {operator.username}" in rows.inner_text()
    assert f"episode/{episode.pk}" in rows.inner_text()
    assert "reply: Sorry: a new lamp is on its way." in rows.inner_text()  # the better reply is shown too


def test_a_ticket_corrected_in_the_unreviewed_list_stays_in_view_with_where_it_landed(
    live_services, browser_page
):
    """Working through the unreviewed tickets, an operator's correction no longer makes the row vanish (the
    list was read again at once and the ticket, now wrong, left the filter) taking the confirmation and the
    dataset link with it: the row stays, marked wrong, until the filters change or the page reloads."""
    page = browser_page
    _, episode, review, form = open_correction(
        page,
        live_services.base_url,
        "/review/?review_status=unreviewed",
        "Tracking still says label created since Tuesday",
    )
    form.get_by_role("checkbox", name=re.compile("^order_tracking")).check()
    form.get_by_role("button", name="Save correction").click()

    review.get_by_text(re.compile(r'Corrected: the ticket joined dataset ".*" \(version 1\)\.')).wait_for()
    page.wait_for_timeout(1_000)  # the list is not read again behind the operator's back
    assert review.get_by_role("link", name="Open the dataset").is_visible()
    assert review.locator(".review-badge").inner_text() == "wrong"
    page.reload()  # the filter holds again: the corrected ticket is no longer unreviewed
    page.get_by_test_id("episode-count").filter(has_text="0").wait_for()
    assert page.get_by_test_id(f"episode-review-{episode.pk}").count() == 0
