"""In real Chromium: an annotator rates queued items on /annotate/; a manager follows the queue on /feedback/."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from conftest import ARTIFACTS
from mase_web.accounts.models import Membership, Role
from mase_web.feedback.enqueue import add_items, from_payload
from mase_web.feedback.models import FeedbackQueue, PairwiseJudgement, Rating, RewardModel
from mase_web.feedback.tests.conftest import snapshot
from mase_web.runs.tests.test_browser_runs import PASSWORD, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def queue_items(queue: FeedbackQueue, tickets: list[tuple[str, str]], intents: dict | None = None) -> None:
    """Episode items of (task, answer); ``intents``: task → the catalogue entries its snapshot carries."""
    payload = [
        {
            "kind": "episode",
            "episode_key": f"run/{i}",
            "snapshot": {
                **snapshot(task, answer=answer, confidence=0.3),
                **({"intents": intents[task]} if task in (intents or {}) else {}),
            },
        }
        for i, (task, answer) in enumerate(tickets)
    ]
    add_items(queue, from_payload(payload))


def rate_current(page, stars: int, tag: str, comment: str) -> None:
    item = page.get_by_test_id("annotation-item")
    item.get_by_role("radio", name=re.compile(rf"^{stars} stars?$")).click()
    item.get_by_role("button", name=tag).click()
    item.get_by_label("Comment").fill(comment)
    item.get_by_role("button", name="Submit rating").click()


def test_an_annotator_rates_two_queued_items_and_judges_a_pair(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    annotator, project = sign_in(
        page, live_services.base_url, "annie", role=Role.ANNOTATOR, next_path="/annotate/"
    )
    page.get_by_text("Nothing is assigned to you yet.").wait_for()
    queue = FeedbackQueue.objects.create(
        project=project, name="Support tickets", guidelines="Was the customer helped?", overlap=1,
        tags=["wrong intent", "rude", "great"],
    )  # fmt: skip
    tracking = [
        {"name": "order_tracking", "description": "Where an order or parcel is now."},
        {"name": "delivery_delay", "description": "A delivery that is late or has not arrived yet."},
    ]
    queue_items(
        queue,
        [("Where is my parcel 1234?", "order_tracking, delivery_delay"), ("Refund order 77", "escalated")],
        intents={"Where is my parcel 1234?": tracking},
    )

    page.reload()
    page.get_by_text("Was the customer helped?").wait_for()
    progress = page.get_by_test_id("annotate-progress")
    progress.filter(has_text="0 of 2 done").wait_for()
    episode = page.get_by_test_id("feedback-episode")
    episode.get_by_text("Where is my parcel 1234?").wait_for()
    # what the team understood, by the intents' names and meanings, never their codes
    intents = episode.get_by_test_id("answer-intents")
    assert intents.get_by_text("Order tracking").is_visible()
    assert intents.get_by_text("A delivery that is late or has not arrived yet.").is_visible()
    assert "order_tracking" not in episode.inner_text() and "delivery_delay" not in episode.inner_text()
    steps = episode.locator("tbody tr")
    assert steps.count() == 2 and "Router" in steps.first.inner_text() and "30 %" in steps.first.inner_text()

    page.get_by_test_id("annotation-item").get_by_role("button", name="great").click()
    page.screenshot(path=str(ARTIFACTS / "annotate-page.png"), full_page=True)
    page.get_by_test_id("annotation-item").get_by_role(
        "button", name="great"
    ).click()  # chips toggle off again
    rate_current(page, 4, "great", "parcel found quickly")
    progress.filter(has_text="1 of 2 done").wait_for()
    page.get_by_test_id("feedback-episode").get_by_text("Refund order 77").wait_for()
    rate_current(page, 2, "wrong intent", "should have refunded")
    page.get_by_test_id("annotate-finished").filter(has_text="All 2 items done").wait_for()

    # A pairwise queue: two answers to one ticket side by side, judged A / B / tie.
    pairwise = FeedbackQueue.objects.create(project=project, name="Which answer", kind="pairwise", overlap=1)
    pair = {"kind": "pair", "episode_key": "run/a", "snapshot": snapshot("Lost parcel", answer="Re-sent"),
            "episode_key_b": "run/b", "snapshot_b": snapshot("Lost parcel", answer="Please wait")}  # fmt: skip
    add_items(pairwise, from_payload([pair]))
    page.reload()
    page.get_by_label("Queue").select_option(label="Which answer")
    item = page.get_by_test_id("annotation-item")
    item.get_by_role("article", name="B").get_by_text("Please wait").wait_for()
    item.get_by_label("Comment").fill("A actually solved it")
    item.get_by_role("button", name="A is better").click()
    page.get_by_test_id("annotate-finished").filter(has_text="All 1 item done").wait_for()
    judgement = PairwiseJudgement.objects.get(annotator=annotator)
    assert (judgement.choice, judgement.comment, judgement.item.episode_key_b) == (
        "A",
        "A actually solved it",
        "run/b",
    )

    ratings = {
        r.item.snapshot["task"]: (r.value, r.tags, r.comment)
        for r in Rating.objects.filter(annotator=annotator).select_related("item")
    }
    assert ratings == {
        "Where is my parcel 1234?": (4, ["great"], "parcel found quickly"),
        "Refund order 77": (2, ["wrong intent"], "should have refunded"),
    }


def test_a_manager_creates_a_queue_sees_disagreement_and_trains_a_reward_model(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(20_000)
    manager, project = sign_in(
        page, live_services.base_url, "mona", role=Role.PRODUCT_MANAGER, next_path="/feedback/"
    )
    page.get_by_text("No queues yet").wait_for()
    annotators = []
    for name in ("rater-a", "rater-b"):
        user = get_user_model().objects.create_user(name, password=PASSWORD)
        Membership.objects.create(project=project, user=user, role=Role.ANNOTATOR)
        annotators.append(user)

    form = page.get_by_role("form", name="Create a queue")
    form.get_by_label("Name").fill("Refund answers")
    form.get_by_label("Annotators per item (overlap)").fill("2")
    assert "all of them when it has fewer" in form.get_by_test_id("overlap-hint").inner_text()
    form.get_by_label("Tags (comma-separated)").fill("wrong intent, great")
    form.get_by_label("Guidelines").fill("Rate how well the refund was handled.")
    form.get_by_role("button", name="Create queue").click()
    card = page.get_by_test_id("queue-card")
    card.get_by_role("heading", name=re.compile("Refund answers")).wait_for()
    queue = FeedbackQueue.objects.get(name="Refund answers")
    assert (queue.overlap, queue.tags, queue.created_by) == (2, ["wrong intent", "great"], manager)

    # Both annotators rate 8 helpful and 8 useless answers; they disagree on the first one.
    good = "Your refund for order {} is issued and reaches your card in three days."
    queue_items(
        queue, [(f"refund {i}", (good if i % 2 == 0 else "error {} null").format(i)) for i in range(16)]
    )
    for item in queue.items.order_by("id"):
        value = 5 if int(item.episode_key.split("/")[1]) % 2 == 0 else 1
        for k, user in enumerate(annotators):
            disagree = item.episode_key == "run/0" and k == 1
            Rating.objects.create(item=item, annotator=user, value=1 if disagree else value)

    page.reload()
    card.get_by_test_id("queue-progress").filter(has_text="32 of 32 answers").wait_for()
    assert "Krippendorff's α (ordinal)" in card.get_by_test_id("queue-alpha").inner_text()
    disagreements = card.get_by_test_id("disagreements").locator("tbody tr")
    assert disagreements.count() == 1 and "refund 0" in disagreements.first.inner_text()
    assert card.get_by_role("link", name="Export JSONL").get_attribute("href") == (
        f"/api/feedback/queues/{queue.pk}/export/"
    )

    card.get_by_role("button", name="Train reward model").click()
    card.get_by_test_id("reward-model-state").filter(has_text="succeeded").wait_for(timeout=180_000)
    figures = card.get_by_test_id("reward-model-figures").inner_text()
    model = RewardModel.objects.get(queue=queue)
    assert f"{round(model.metrics['accuracy'] * 100)} %" in figures and "on 4 held-out items" in figures
    warning = card.get_by_test_id("reward-model-warning").inner_text()
    assert "only 4 held-out items" in warning and "at least 30" in warning


def test_an_annotator_rates_and_judges_with_the_keyboard_and_reads_messages_as_text(
    live_services, browser_page
):
    page = browser_page
    page.set_default_timeout(15_000)
    annotator, project = sign_in(
        page, live_services.base_url, "kira", role=Role.ANNOTATOR, next_path="/annotate/"
    )
    queue = FeedbackQueue.objects.create(
        project=project, name="Keyboard queue", overlap=1, tags=["wrong intent", "rude", "great"]
    )
    first = snapshot("Where is parcel 12?", answer="Re-sent")
    first["steps"][1]["messages"] = {
        "received": [{"from": "router", "weight": 0.7}],
        "sent": [{"to": "billing", "weight": 0.25}],
    }
    add_items(queue, from_payload([
        {"kind": "episode", "episode_key": "run/k1", "snapshot": first},
        {"kind": "episode", "episode_key": "run/k2", "snapshot": snapshot("Refund order 88")},
    ]))  # fmt: skip

    page.reload()
    item = page.get_by_test_id("annotation-item")
    item.get_by_text("Where is parcel 12?").wait_for()
    messages = item.get_by_test_id("step-messages")
    assert messages.count() == 1  # the router's empty log reads "none"
    text = messages.inner_text()
    assert "Router → Resolver" in text and "Resolver → Billing" in text
    assert not any(c in text for c in '{}[]"'), text
    assert "attention" not in text and "0.7" not in text, text  # how much it listened: a bar, not a figure
    bars = messages.locator(".fb-weight > span")
    assert [bars.nth(i).get_attribute("style") for i in range(bars.count())] == ["width: 70%;", "width: 25%;"]
    assert "none" in item.locator("tbody tr").first.inner_text()
    legend = item.get_by_test_id("hotkey-legend").inner_text()
    assert "rating" in legend and "submit" in legend and "next item" in legend
    assert item.get_by_role("button", name="great").locator("kbd").inner_text() == "e"

    page.keyboard.press("Enter")  # no rating yet: said, not silently ignored
    assert item.get_by_test_id("rating-notice").inner_text() == "choose a rating (1–5) first"
    assert "skip" in legend
    page.keyboard.press("s")  # skipped for now, as in the intents queue
    item.get_by_text("Refund order 88").wait_for()
    page.keyboard.press("ArrowLeft")
    item.get_by_text("Where is parcel 12?").wait_for()

    four = item.get_by_role("radio", name="4 stars")
    page.keyboard.press("4")
    assert four.get_attribute("aria-checked") == "true"
    page.screenshot(path=str(ARTIFACTS / "annotate-keyboard.png"), full_page=True)
    comment = item.get_by_label("Comment")
    comment.click()
    page.keyboard.type("quite 2 of 5 - next")  # digits, tag letters and n: all of it is just text here
    assert comment.input_value() == "quite 2 of 5 - next"
    assert four.get_attribute("aria-checked") == "true"
    assert item.get_by_role("radio", name="2 stars").get_attribute("aria-checked") == "false"
    assert item.get_by_role("button", name="great").get_attribute("aria-pressed") == "false"
    page.keyboard.press("Escape")  # leaves the comment box
    page.keyboard.press("e")
    assert item.get_by_role("button", name="great").get_attribute("aria-pressed") == "true"
    page.keyboard.press("Enter")
    page.get_by_test_id("annotate-progress").filter(has_text="1 of 2 done").wait_for()
    item.get_by_text("Refund order 88").wait_for()
    rating = Rating.objects.get(annotator=annotator)
    assert (rating.item.episode_key, rating.value, rating.tags, rating.comment) == (
        "run/k1", 4, ["great"], "quite 2 of 5 - next"
    )  # fmt: skip

    # ← goes back to the rated item, its answer filled in; n goes forward again.
    page.keyboard.press("ArrowLeft")
    item.get_by_text("Where is parcel 12?").wait_for()
    assert item.get_by_role("radio", name="4 stars").get_attribute("aria-checked") == "true"
    page.keyboard.press("n")
    item.get_by_text("Refund order 88").wait_for()
    page.keyboard.press("2")
    page.keyboard.press("Control+Enter")
    page.get_by_test_id("annotate-finished").wait_for()
    assert Rating.objects.get(item__episode_key="run/k2").value == 2

    # A pair: b judges B better.
    pairwise = FeedbackQueue.objects.create(
        project=project, name="Keyboard pairs", kind="pairwise", overlap=1
    )
    pair = {"kind": "pair", "episode_key": "run/p1", "snapshot": snapshot("Lost card", answer="Blocked it"),
            "episode_key_b": "run/p2", "snapshot_b": snapshot("Lost card", answer="Call us")}  # fmt: skip
    add_items(pairwise, from_payload([pair]))
    page.reload()
    page.get_by_label("Queue").select_option(label="Keyboard pairs")
    page.get_by_role("heading", name="Annotate").click()  # the focus leaves the queue menu
    item.get_by_role("article", name="B").get_by_text("Call us").wait_for()
    assert "B is better" in item.get_by_test_id("hotkey-legend").inner_text()
    page.keyboard.press("b")
    page.get_by_test_id("annotate-finished").filter(has_text="All 1 item done").wait_for()
    assert PairwiseJudgement.objects.get(annotator=annotator).choice == "B"
