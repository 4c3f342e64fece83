"""In real Chromium: a product manager gives a new intent to a specialist whose prompt is still the template's;
its prompt box then shows a prompt written from the intents it owns (and the draft leaves it out, so it
follows them); a prompt the user then writes is kept, and flagged beside it when it misses an owned intent."""

from __future__ import annotations

import pytest

from mase_web.workflows.tests.test_browser_designer import open_template

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_default_prompt_follows_the_intents_and_an_edited_one_is_flagged(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    workflow = open_template(page, live_services.base_url, "customer_service", "Support desk")
    page.get_by_role("tab", name="Environment").click()
    page.get_by_role("button", name="Add intent").click()
    page.get_by_label("Intent 9 name").fill("warranty_claim")
    page.get_by_label("Intent 9 description").fill("A claim under the product's warranty.")
    page.get_by_test_id("problems").get_by_text("nobody owns the intent warranty_claim").wait_for()

    page.get_by_test_id("agent-node-dispute_mediator").click()
    prompt = page.get_by_test_id("agent-prompt")
    assert prompt.input_value().startswith("You are the dispute mediator.")
    page.get_by_test_id("intent-warranty_claim").check()
    page.get_by_test_id("prompt-source").filter(has_text="Written from the intents it owns").wait_for()
    shown = prompt.input_value()
    assert shown.startswith("You answer the customer's requests about return refund (")
    assert shown.endswith(
        "and warranty claim (a claim under the product's warranty). Leave other requests to your teammates."
    )
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    mediator = next(a for a in workflow.spec["agents"] if a["id"] == "dispute_mediator")
    assert "prompt" not in mediator and "warranty_claim" in mediator["intents"]

    # a prompt the user writes is kept as written; it misses owned intents, so it is flagged beside it
    prompt.fill("You handle refunds and complaints.")
    page.get_by_test_id("prompt-warning").filter(
        has_text="does not speak of damaged item, warranty claim"
    ).wait_for()
    assert page.get_by_test_id("prompt-source").count() == 0
    page.get_by_role("button", name="Write it from its intents").click()
    page.get_by_test_id("prompt-source").filter(has_text="Written from the intents it owns").wait_for()
    assert prompt.input_value() == shown
