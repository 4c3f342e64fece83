"""Annotation items carry the written reply: its text and who wrote which part are frozen in the snapshot,
the reward model reads the reply, and two backends' replies to the same decisions are a fair pair."""

from __future__ import annotations

import pytest

from mase_web.feedback.enqueue import twin_reason
from mase_web.feedback.models import FeedbackItem
from mase_web.feedback.snapshots import snapshot_text
from mase_web.feedback.tests.conftest import client_for, make_queue
from mase_web.feedback.tests.test_enqueue_and_reward_model import deployment_with_episodes

REPLY = {
    "text": "Hello,\n\nYour parcel is on its way.\n\nKind regards,\nCustomer service",
    "backend": "openai_compatible",
    "parts": [{"agent": "logistics", "text": "Your parcel is on its way.", "source": "model", "usage": {}}],
}


@pytest.mark.django_db
def test_items_of_episodes_with_a_reply_carry_it(people):
    project, users = people
    deployment = deployment_with_episodes(project)
    written = deployment.episodes.get(request_id="req-1")
    written.result = {**written.result, "reply": REPLY}
    written.save(update_fields=["result"])
    queue = make_queue(users["pm"], project, overlap=1)
    url = f"/api/feedback/queues/{queue['id']}/enqueue-deployment/"
    added = client_for(users["pm"]).post(url, {"deployment": deployment.pk}, format="json")
    assert added.status_code == 201, added.content
    item = FeedbackItem.objects.get(episode_key=f"deployment/{deployment.pk}/req-1")
    assert item.snapshot["reply"] == {
        "text": REPLY["text"],
        "backend": "openai_compatible",
        "parts": [{"agent": "logistics", "text": "Your parcel is on its way.", "source": "model"}],
    }
    text = snapshot_text(item.snapshot)
    assert "Reply: Hello, Your parcel is on its way. Kind regards, Customer service" in text
    assert text.index("Task:") < text.index("Reply:")
    plain = FeedbackItem.objects.get(episode_key=f"deployment/{deployment.pk}/req-0")
    assert "reply" not in plain.snapshot and "Reply:" not in snapshot_text(plain.snapshot)


def test_two_backends_replies_to_the_same_decisions_are_not_twins():
    base = {"task": "where is my parcel", "answer": "order_tracking", "steps": [], "meta": {}}
    a = {**base, "reply": {**REPLY, "backend": "template"}}
    b = {**base, "reply": REPLY}
    assert twin_reason("k-a", a, "k-b", b) is None
    assert twin_reason("k-a", a, "k-b", dict(a))[0] == "snapshot_b"  # the same reply twice is
