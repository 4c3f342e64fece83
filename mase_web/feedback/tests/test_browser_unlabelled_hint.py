"""In real Chromium: a product manager reading a dataset with unlabelled rows is told where they get labelled
(an intents queue on Feedback) and follows the link there."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.datasets.models import Dataset
from mase_web.datasets.service import add_rows
from mase_web.runs.tests.test_browser_runs import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_unlabelled_rows_point_a_manager_to_an_intents_queue(live_services, browser_page):
    page, base = browser_page, live_services.base_url
    _, project = sign_in(page, base, "pia", role=Role.PRODUCT_MANAGER, next_path="/datasets/")
    dataset = Dataset.objects.create(project=project, name="own tickets")
    rows = [
        {"text": "where is my gift card?"},
        {"text": "a parcel", "intents": ["order_tracking"]},
        {"text": "hi"},
    ]
    add_rows(dataset, rows, "uploaded")

    page.goto(f"{base}/datasets/{dataset.pk}/")
    hint = page.get_by_test_id("label-unlabelled")
    hint.get_by_text("2 rows have no label yet").wait_for(timeout=15_000)
    hint.get_by_role("link", name="Feedback").click()
    page.wait_for_url(f"{base}/feedback/")
    page.get_by_role("form", name="Create a queue").wait_for(timeout=15_000)
