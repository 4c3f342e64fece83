"""In real Chromium, as a product manager: an intents queue is filled by choosing the dataset by its name
(a version's id is shown nowhere), and once two annotators answered, the queue shows the agreement per
intent and how many rows landed in the dataset."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from conftest import ARTIFACTS
from mase_web.accounts.models import Membership, Role
from mase_web.datasets.models import Dataset
from mase_web.datasets.service import add_rows
from mase_web.feedback.models import Assignment
from mase_web.runs.tests.conftest import client_for
from mase_web.runs.tests.test_browser_runs import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

CATALOGUE = {
    "intents": [
        {"name": "damaged_item", "description": "An item that arrived broken."},
        {"name": "delivery_delay", "description": "A delivery that is late."},
    ]
}
ANSWERS = {  # per row, what each of the two annotators chose: they agree on the first, not the second
    "The lamp arrived cracked": (["damaged_item"], ["damaged_item"]),
    "My parcel is late and the mug broke": (["delivery_delay"], ["damaged_item", "delivery_delay"]),
}


def test_a_manager_queues_a_dataset_by_name_and_reads_agreement_per_intent(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    manager, project = sign_in(page, live_services.base_url, "petra", next_path="/feedback/")
    annotators = []
    for name in ("ann1", "ann2"):
        annotators.append(get_user_model().objects.create_user(name))
        Membership.objects.create(project=project, user=annotators[-1], role=Role.ANNOTATOR)
    dataset = Dataset.objects.create(project=project, name="own tickets", catalogue=CATALOGUE)
    add_rows(dataset, [{"text": text} for text in ANSWERS], "uploaded", by=manager)

    page.reload()
    page.get_by_label("Name").fill("label tickets")
    page.get_by_label("Kind").select_option(label="choose the intents of dataset rows")
    page.get_by_label("Annotators per item (overlap)").fill("2")
    page.get_by_role("button", name="Create queue").click()
    form = page.get_by_role("form", name="Queue dataset rows for label tickets")
    form.get_by_role("combobox", name="Dataset", exact=True).select_option(label="own tickets · v1 (2 rows)")
    form.get_by_role("button", name="Queue unlabelled rows").click()
    form.get_by_text("2 rows queued").wait_for()

    for assignment in Assignment.objects.select_related("item", "annotator"):
        first_or_second = annotators.index(assignment.annotator)
        answer = ANSWERS[assignment.item.snapshot["task"]][first_or_second]
        body = {"item": assignment.item_id, "intents": answer}
        posted = client_for(assignment.annotator).post("/api/feedback/intent-labels/", body, format="json")
        assert posted.status_code == 201, posted.content

    page.reload()
    per_intent = page.get_by_test_id("intent-agreement")
    per_intent.get_by_text("2 rows labelled in the dataset so far.").wait_for()  # majorities: both
    cells = per_intent.locator("tbody tr").all_inner_texts()
    assert [cell.split("\t")[0] for cell in cells] == ["damaged_item", "delivery_delay"]
    assert cells[1].endswith("1.000") and not cells[0].endswith("1.000")  # both chose delivery_delay
    disagreement = page.get_by_test_id("disagreements").inner_text()
    assert "delivery_delay, damaged_item + delivery_delay" in disagreement  # each answer in words
    page.screenshot(path=str(ARTIFACTS / "feedback-intent-agreement.png"), full_page=True)
