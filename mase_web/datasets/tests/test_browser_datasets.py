"""In real Chromium: a product manager types an intent catalogue and uploads a file on /datasets/, sees the
line it refused, then the dataset's catalogue, rows, label chart and splits, and filters the rows."""

from __future__ import annotations

import json

import pytest

from mase_web.accounts.models import Role
from mase_web.datasets.models import Dataset
from mase_web.runs.tests.test_browser_runs import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

ROWS = [
    *({"text": f"where is my parcel number {i}?", "intents": ["order_tracking"]} for i in range(12)),
    {"text": "the mug arrived broken", "intents": ["damaged_item", "return_refund"]},
    {"intents": ["complaint"]},  # line 14: no text
    *({"text": f"I want my money back for order {i}", "intents": ["return_refund"]} for i in range(6)),
    {"text": "thanks, that is all"},
]


def test_upload_a_file_then_read_its_rows_chart_and_splits(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    sign_in(page, base, "pam", role=Role.PRODUCT_MANAGER, next_path="/datasets/")
    page.get_by_text("No datasets yet.").wait_for()

    form = page.get_by_role("form", name="Upload a dataset")
    form.get_by_label("Name", exact=True).fill("Shop tickets")
    intents = "order_tracking: where a parcel is\ndamaged_item: it arrived broken\nreturn_refund: money back"
    form.get_by_role("textbox", name="Intents (optional)").fill(intents)
    content = "".join(json.dumps(row) + "\n" for row in ROWS).encode()
    form.get_by_label("Dataset file (JSONL or CSV)").set_input_files(
        {"name": "tickets.jsonl", "mimeType": "application/jsonl", "buffer": content}
    )
    form.get_by_role("button", name="Upload").click()
    report = form.get_by_test_id("upload-report")
    report.get_by_text("20 rows from the file stored, 1 refused: version v1 holds 20 rows.").wait_for()
    refused = report.get_by_test_id("row-errors")
    assert "line 14" in refused.inner_text() and "text is required" in refused.inner_text()
    assert "unknown intent 'complaint'" in refused.inner_text()  # not in the catalogue typed above
    # the form is ready for the next file: the one uploaded no longer shows in it
    assert form.get_by_label("Dataset file (JSONL or CSV)").input_value() == ""
    assert form.get_by_role("button", name="Upload").is_disabled()

    dataset = Dataset.objects.get(name="Shop tickets")
    form.get_by_role("link", name="Open the dataset").click()
    page.wait_for_url(f"{base}/datasets/{dataset.pk}/")
    page.get_by_test_id("row-count").filter(has_text="20 rows").wait_for()
    rows = page.get_by_test_id("dataset-rows")
    rows.get_by_text("the mug arrived broken").wait_for()
    page.get_by_test_id("catalogue").get_by_text("3 intents in the catalogue").click()
    assert page.get_by_test_id("catalogue").get_by_text("it arrived broken").is_visible()
    assert "uploaded by pam" in rows.inner_text()

    chart = page.get_by_test_id("label-chart")
    tracking = chart.get_by_test_id("label-order_tracking")
    assert tracking.locator(".label-count").inner_text() == "12"
    assert chart.get_by_test_id("label-(unlabelled)").locator(".label-count").inner_text() == "1"
    width = tracking.locator(".seg-train").evaluate("e => e.getBoundingClientRect().width")
    refunds = chart.get_by_test_id("label-return_refund").locator(".seg-train")
    assert width > refunds.evaluate("e => e.getBoundingClientRect().width") > 0  # 12 rows draw longer than 7
    splits = page.get_by_test_id("splits")
    counts = [
        int(splits.get_by_test_id(f"split-{s}").locator("td").nth(1).inner_text())
        for s in ("train", "dev", "test")
    ]
    assert sum(counts) == 20 and counts[0] > counts[1] > 0

    page.get_by_label("Intent", exact=True).select_option("return_refund")
    page.get_by_test_id("row-count").filter(has_text="7 rows").wait_for()
    page.get_by_label("Search rows").fill("order 3")
    page.get_by_test_id("row-count").filter(has_text="1 rows").wait_for()
    assert "I want my money back for order 3" in rows.inner_text()
