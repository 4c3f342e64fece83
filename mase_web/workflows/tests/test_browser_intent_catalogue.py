"""In real Chromium: a product manager adds an intent to the customer-service template's catalogue on the
Environment tab, sees that nobody owns it, and gives it to the dispute mediator in its inspector."""

from __future__ import annotations

import pytest

from mase_web.workflows.tests.test_browser_designer import open_template

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_new_intent_is_declared_and_given_to_a_specialist(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    workflow = open_template(page, live_services.base_url, "customer_service", "Support desk")
    page.get_by_role("tab", name="Environment").click()
    page.get_by_role("button", name="Add intent").click()
    page.get_by_label("Intent 9 name").fill("warranty_claim")
    page.get_by_label("Intent 9 description").fill("A claim under the product's warranty: repair or replace.")
    page.get_by_label("Intent 9 keywords").fill("warranty, guarantee")
    page.get_by_test_id("problems").get_by_text("nobody owns the intent warranty_claim").wait_for()

    page.get_by_test_id("agent-node-dispute_mediator").click()
    page.get_by_test_id("intent-warranty_claim").check()
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()
    workflow.refresh_from_db()
    intents = workflow.spec["environment"]["params"]["intents"]
    assert [i["name"] for i in intents][:8] == [
        "product_question", "recommendation", "order_tracking", "delivery_delay",
        "address_change", "return_refund", "damaged_item", "complaint",
    ]  # fmt: skip
    assert intents[8] == {
        "name": "warranty_claim",
        "description": "A claim under the product's warranty: repair or replace.",
        "keywords": ["warranty", "guarantee"],
    }
    mediator = next(a for a in workflow.spec["agents"] if a["id"] == "dispute_mediator")
    assert "warranty_claim" in mediator["intents"]
