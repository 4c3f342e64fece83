"""In real Chromium: a new dataset whose first file has no usable row can be filled by uploading a corrected
file under the same name (the refused upload had already made the dataset, so a retry used to fail on
its own name)."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.datasets.models import Dataset
from mase_web.runs.tests.test_browser_runs import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def choose_file(form, content: bytes) -> None:
    form.get_by_label("Dataset file (JSONL or CSV)").set_input_files(
        {"name": "tickets.jsonl", "mimeType": "application/jsonl", "buffer": content}
    )


def test_a_refused_first_file_then_a_corrected_one_fills_the_same_dataset(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    sign_in(page, live_services.base_url, "pam", role=Role.PRODUCT_MANAGER, next_path="/datasets/")
    form = page.get_by_role("form", name="Upload a dataset")
    form.get_by_label("Name", exact=True).fill("Shop tickets")
    form.get_by_role("textbox", name="Intents (optional)").fill("refund: money back")
    choose_file(form, b'{"text": 3}\n')
    form.get_by_role("button", name="Upload").click()
    form.get_by_text("line 1").wait_for()
    form.get_by_test_id("made-empty").wait_for()  # says the dataset exists, empty

    form.get_by_role("textbox", name="Intents (optional)").fill("refund: money back\ndelay: late parcel")
    choose_file(form, b'{"text": "my money back please", "intents": ["refund"]}\n{"text": "it is late"}\n')
    form.get_by_role("button", name="Upload").click()
    form.get_by_text("from the file stored").wait_for()
    assert "unique set" not in form.inner_text()
    (dataset,) = Dataset.objects.all()  # one dataset: the retry filled the one the first try made
    assert dataset.name == "Shop tickets" and dataset.versions.count() == 1
    assert dataset.intent_names() == ["refund", "delay"]  # the catalogue as typed on the retry
