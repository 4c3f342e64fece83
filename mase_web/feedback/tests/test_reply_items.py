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
    a = {**base, "reply": {**REPLY, "backend": "template", "text": "Your parcel left our depot today."}}
    b = {**base, "reply": REPLY}
    assert twin_reason("k-a", a, "k-b", b) is None
    assert twin_reason("k-a", a, "k-b", dict(a))[0] == "snapshot_b"  # the same reply twice is
    # two backends that wrote the same words (but for case and spacing) leave nothing to choose between
    shouted = {**base, "reply": {**REPLY, "backend": "template", "text": "  " + REPLY["text"].upper() + "\n"}}
    field, message = twin_reason("k-a", shouted, "k-b", b)
    assert field == "snapshot_b" and "same text" in message


def _reply_of(episode, text: str) -> None:
    episode.result = {**episode.result, "reply": {**REPLY, "text": text}}
    episode.save(update_fields=["result"])


@pytest.mark.django_db
def test_pairs_from_deployments_skip_rivals_with_the_same_reply_and_count_them(people):
    from mase_web.feedback.tests.test_enqueue_and_reward_model import other_deployment

    project, users = people
    deployment = deployment_with_episodes(project)  # req-0 "where is my parcel", req-1 "refund please"
    rival = other_deployment(project, "/y", ["where is my parcel", "refund please"], name="newer")
    _reply_of(deployment.episodes.get(request_id="req-0"), "Your parcel is on its way.")
    _reply_of(rival.episodes.get(request_id="newer-0"), "  your PARCEL is on\nits way. ")  # same words
    _reply_of(deployment.episodes.get(request_id="req-1"), "Your refund is on its way.")
    _reply_of(rival.episodes.get(request_id="newer-1"), "We cannot refund this order.")
    queue = make_queue(users["pm"], project, kind="pairwise", overlap=1, tags=[])
    url = f"/api/feedback/queues/{queue['id']}/enqueue-deployment/"
    response = client_for(users["pm"]).post(url, {"deployment": deployment.pk}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["added"] == 1 and response.json()["skipped_identical"] == 1
    (pair,) = FeedbackItem.objects.filter(queue_id=queue["id"])
    assert pair.snapshot["task"] == "refund please" and pair.snapshot_b["reply"]["text"].startswith(
        "We cannot"
    )


@pytest.mark.django_db
def test_enqueue_refuses_an_explicit_pair_of_equal_replies(people):
    project, users = people
    queue = make_queue(users["pm"], project, kind="pairwise", overlap=1, tags=[])
    url = f"/api/feedback/queues/{queue['id']}/enqueue/"
    base = {"task": "where is my parcel", "answer": "order_tracking", "steps": []}

    def pair(text_b: str):
        item = {
            "kind": "pair",
            "episode_key": "deployment/1/a",
            "snapshot": {**base, "reply": {"text": "Your parcel is on its way."}, "meta": {"deployment": 1}},
            "episode_key_b": "deployment/2/b",
            "snapshot_b": {**base, "reply": {"text": text_b}, "meta": {"deployment": 2}},
        }
        return client_for(users["pm"]).post(url, {"items": [item]}, format="json")

    refused = pair("your parcel IS on its   way.")
    assert refused.status_code == 400, refused.content
    assert "same text" in str(refused.json()["errors"]) and "snapshot_b" in str(refused.json()["errors"])
    assert FeedbackItem.objects.count() == 0
    accepted = pair("Your parcel is late; it arrives on Monday.")
    assert accepted.status_code == 201 and accepted.json()["added"] == 1
    assert FeedbackItem.objects.get().snapshot_b["reply"]["text"].startswith("Your parcel is late")


@pytest.mark.django_db
def test_items_say_what_the_answers_intents_mean(people):
    from agents.envs.customer_service.roster import INTENT_DESCRIPTIONS

    project, users = people
    deployment = deployment_with_episodes(project)
    deployment.spec = {"environment": {"name": "customer_service"}}
    deployment.save(update_fields=["spec"])
    episode = deployment.episodes.get(request_id="req-0")
    episode.result = {"info": {"predicted_intents": ["order_tracking", "delivery_delay", "no_such_intent"]}}
    episode.save(update_fields=["result"])
    queue = make_queue(users["pm"], project, overlap=1)
    url = f"/api/feedback/queues/{queue['id']}/enqueue-deployment/"
    assert client_for(users["pm"]).post(url, {"deployment": deployment.pk}, format="json").status_code == 201
    item = FeedbackItem.objects.get(episode_key=f"deployment/{deployment.pk}/req-0")
    assert item.snapshot["answer"] == "order_tracking, delivery_delay, no_such_intent"
    assert item.snapshot["intents"] == [
        {"name": "order_tracking", "description": INTENT_DESCRIPTIONS["order_tracking"]},
        {"name": "delivery_delay", "description": INTENT_DESCRIPTIONS["delivery_delay"]},
    ]
    # an answer that names no intent of the catalogue adds nothing
    plain = FeedbackItem.objects.get(episode_key=f"deployment/{deployment.pk}/req-1")
    assert plain.snapshot["answer"] == "shipping" and "intents" not in plain.snapshot


@pytest.mark.django_db
def test_items_read_the_descriptions_of_the_deployed_specs_own_catalogue(people):
    project, users = people
    deployment = deployment_with_episodes(project)
    own = [{"name": "complaint"}, {"name": "warranty_claim", "description": "A claim under the warranty."}]
    deployment.spec = {"environment": {"name": "customer_service", "params": {"intents": own}}}
    deployment.save(update_fields=["spec"])
    episode = deployment.episodes.get(request_id="req-0")
    episode.result = {"info": {"predicted_intents": ["warranty_claim", "complaint"]}}
    episode.save(update_fields=["result"])
    queue = make_queue(users["pm"], project, overlap=1)
    url = f"/api/feedback/queues/{queue['id']}/enqueue-deployment/"
    assert client_for(users["pm"]).post(url, {"deployment": deployment.pk}, format="json").status_code == 201
    item = FeedbackItem.objects.get(episode_key=f"deployment/{deployment.pk}/req-0")
    assert item.snapshot["intents"] == [
        {"name": "warranty_claim", "description": "A claim under the warranty."},
        {
            "name": "complaint",
            "description": "Unhappy with the service or staff, asks to escalate to a manager.",
        },
    ]
