"""In real Chromium: an annotator labels dataset rows with the keyboard on /annotate/ (number keys toggle
intents, S skips, Enter submits) and the labels land in the dataset as provenance "annotated", which the
dataset's rows page names as "annotated by <annotator>"."""

from __future__ import annotations

import pytest

from conftest import ARTIFACTS
from mase_web.accounts.models import Role
from mase_web.datasets.facade import version_rows
from mase_web.datasets.models import Dataset
from mase_web.datasets.service import add_rows
from mase_web.feedback.enqueue import add_items
from mase_web.feedback.intent_labels import unlabelled_items
from mase_web.feedback.models import FeedbackQueue, RowLabel
from mase_web.runs.tests.test_browser_runs import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

CATALOGUE = [
    {"name": "damaged_item", "description": "An item that arrived broken."},
    {"name": "delivery_delay", "description": "A delivery that is late."},
    {"name": "warranty_claim", "description": "A product broke within its warranty."},
]


def test_an_annotator_labels_two_rows_with_the_keyboard(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    annotator, project = sign_in(
        page, live_services.base_url, "lena", role=Role.ANNOTATOR, next_path="/annotate/"
    )
    dataset = Dataset.objects.create(project=project, name="own tickets", catalogue={"intents": CATALOGUE})
    texts = ["The lamp arrived cracked", "My parcel is two weeks late and the mug inside broke", "hi"]
    version = add_rows(dataset, [{"text": t} for t in texts], "uploaded")
    queue = FeedbackQueue.objects.create(
        project=project,
        name="Label tickets",
        kind="intents",
        overlap=1,
        guidelines="Pick every intent asked for.",
    )
    add_items(queue, unlabelled_items(queue, version, CATALOGUE, limit=10))

    page.reload()
    page.get_by_text("Pick every intent asked for.").wait_for()
    item = page.get_by_test_id("annotation-item")
    item.get_by_text("The lamp arrived cracked").wait_for()
    assert item.get_by_text("A product broke within its warranty.").is_visible()  # the meaning beside each
    assert page.get_by_role("button", name="Skip for now").count() == 1  # one skip control, not two
    page.keyboard.press("1")
    assert item.get_by_role("button", name="Damaged item").get_attribute("aria-pressed") == "true"
    page.screenshot(path=str(ARTIFACTS / "annotate-intents.png"), full_page=True)
    page.keyboard.press("Enter")
    item.get_by_text("My parcel is two weeks late").wait_for()
    page.keyboard.press("s")  # skipped for now: the third row comes first
    item.get_by_text("hi", exact=True).wait_for()
    page.keyboard.press("0")
    page.keyboard.press("Enter")
    item.get_by_text("My parcel is two weeks late").wait_for()  # the skipped row comes back last
    for key in ("2", "1", "Enter"):
        page.keyboard.press(key)
    page.get_by_test_id("annotate-finished").wait_for()

    landed = {label.item.snapshot["task"]: label.intents for label in RowLabel.objects.select_related("item")}
    assert landed == {texts[0]: ["damaged_item"], texts[1]: ["damaged_item", "delivery_delay"], texts[2]: []}
    newest = dataset.versions.order_by("-number").first()
    annotated = version_rows(newest).filter(provenance="annotated")  # every row it holds, not only its own
    assert sorted((r.text, tuple(r.intents), r.by_id) for r in annotated) == sorted(
        [(texts[0], ("damaged_item",), annotator.pk), (texts[1], ("damaged_item", "delivery_delay"), annotator.pk),
         (texts[2], (), annotator.pk)]
    )  # fmt: skip
    # the dataset's rows page names the row's origin as its filter does: annotated, by whom
    page.goto(f"{live_services.base_url}/datasets/{dataset.pk}/")
    origin = (
        page.get_by_test_id("dataset-rows").get_by_role("row").filter(has_text=texts[0]).locator("td").last
    )
    assert origin.inner_text().startswith("annotated by lena")
