"""The intent annotation queue: a dataset version's unlabelled rows go to `overlap` annotators each, who
choose intents from the catalogue; the majority label lands in the dataset as provenance "annotated" with
who gave it; agreement is Krippendorff's alpha over the answers."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from mase_web.datasets.facade import version_rows
from mase_web.datasets.models import Dataset, DatasetRow
from mase_web.datasets.service import add_rows
from mase_web.feedback.intent_labels import majority_label
from mase_web.feedback.label_publishing import publish_queue
from mase_web.feedback.models import Assignment, RowLabel
from mase_web.feedback.models import FeedbackQueue as Queue
from mase_web.feedback.tests.conftest import client_for, make_queue

pytestmark = pytest.mark.django_db

CATALOGUE = {
    "intents": [
        {"name": "damaged_item", "description": "An item that arrived broken."},
        {"name": "delivery_delay", "description": "A delivery that is late."},
        {"name": "warranty_claim", "description": "A product broke within its warranty."},
    ]
}
TEXTS = ["the lamp came cracked", "my parcel is a week late", "the kettle died after 3 months", "hello?"]


@pytest.fixture
def queued(people):
    """An intents queue (overlap 2) holding the four unlabelled rows of a dataset's first version."""
    project, users = people
    dataset = Dataset.objects.create(project=project, name="own tickets", catalogue=CATALOGUE)
    rows = [{"text": text} for text in TEXTS] + [{"text": "where is it", "intents": ["delivery_delay"]}]
    version = add_rows(dataset, rows, "uploaded", by=users["pm"])
    queue = make_queue(users["pm"], project, kind="intents", tags=[], name="label tickets")
    added = client_for(users["pm"]).post(
        f"/api/feedback/queues/{queue['id']}/enqueue-dataset/", {"version": version.pk}, format="json"
    )
    assert added.status_code == 201, added.content
    return users, dataset, queue, added.json()["items"]


def label(user, item: int, intents):
    return client_for(user).post(
        "/api/feedback/intent-labels/", {"item": item, "intents": intents}, format="json"
    )


def holders(item: int) -> list:
    return sorted(Assignment.objects.filter(item_id=item).values_list("annotator__username", flat=True))


def test_the_majority_rule():
    assert majority_label([["a"]]) == ["a"]
    assert majority_label([["a", "b"], ["a"]]) == ["a"]  # b: one of two is no majority
    assert majority_label([["a"], ["b"]]) is None
    assert majority_label([["a", "b"], ["b"], ["a", "b"]]) == ["a", "b"]
    assert majority_label([[], [], ["a"]]) == []  # out of scope: most said "none of these"
    assert majority_label([[], ["a"]]) is None
    assert majority_label([]) is None


def test_unlabelled_rows_go_to_two_annotators_each_and_an_agreed_label_lands(queued):
    users, dataset, queue, items = queued
    assert len(items) == 4  # the labelled row is not queued
    loads = Counter(name for item in items for name in holders(item))
    assert all(len(holders(item)) == 2 for item in items) and max(loads.values()) - min(loads.values()) <= 1
    mine = client_for(users["ann1"]).get("/api/feedback/my-items/", {"queue": queue["id"]}).json()["results"]
    shown = mine[0]["snapshot"]
    assert shown["task"] in TEXTS and [i["name"] for i in shown["catalogue"]] == [
        "damaged_item", "delivery_delay", "warranty_claim",
    ]  # fmt: skip
    assert shown["catalogue"][0]["description"] == "An item that arrived broken."

    first = items[0]  # "the lamp came cracked"
    a, b = (users[name] for name in holders(first))
    answered = label(a, first, ["damaged_item"])
    assert answered.status_code == 201 and answered.json()["landed"] is None
    assert not RowLabel.objects.exists() and dataset.versions.count() == 1  # waiting for the second
    answered = label(b, first, ["damaged_item", "warranty_claim"])
    assert answered.status_code == 201, answered.content
    # agreed, but it waits for the session's other labels: no version per row (decision 0032)
    assert answered.json()["landed"]["pending"] is True and dataset.versions.count() == 1
    assert publish_queue(Queue.objects.get(pk=queue["id"])) == 1  # as its session's end or the sweep does
    landed = RowLabel.objects.get(item_id=first).landed
    assert label(b, first, ["damaged_item", "warranty_claim"]).json()["landed"] == landed
    row = DatasetRow.objects.get(pk=landed["row"])
    assert (row.text, row.intents, row.provenance, row.by) == (TEXTS[0], ["damaged_item"], "annotated", b)
    assert row.metadata["annotated_by"] == [a.username, b.username]
    assert row.source_ref == f"feedback/queue/{queue['id']}/item/{first}"
    assert (row.version.dataset_id, row.version.number) == (dataset.pk, 2)
    # in place: the labelled row replaces the unlabelled one (not held twice) and keeps its split
    before = DatasetRow.objects.get(version__dataset=dataset, version__number=1, text=TEXTS[0])
    held = version_rows(row.version)
    assert list(held.filter(text=TEXTS[0]).values_list("pk", flat=True)) == [row.pk]
    assert held.count() == version_rows(before.version).count() and row.split == before.split

    again = label(a, first, ["warranty_claim"])  # a changed answer after landing changes nothing landed
    assert again.status_code == 200 and again.json()["landed"] == landed
    assert dataset.versions.count() == 2


def test_disagreement_keeps_the_row_unlabelled_and_agreement_is_measured(queued):
    users, dataset, queue, items = queued
    for item, answers in zip(items, (["damaged_item"], ["delivery_delay"], None, []), strict=True):
        a, b = (users[name] for name in holders(item))
        if answers is None:  # the kettle: the two annotators disagree
            assert label(a, item, ["warranty_claim"]).status_code == 201
            assert label(b, item, ["damaged_item"]).status_code == 201
        else:
            assert label(a, item, answers).status_code == 201
            assert label(b, item, answers).status_code == 201
    landed = {label.item_id: label.intents for label in RowLabel.objects.all()}
    assert landed == {items[0]: ["damaged_item"], items[1]: ["delivery_delay"], items[3]: []}
    out_of_scope = DatasetRow.objects.get(pk=RowLabel.objects.get(item_id=items[3]).landed["row"])
    assert out_of_scope.intents == [] and out_of_scope.metadata["out_of_scope"] is True

    figures = client_for(users["pm"]).get(f"/api/feedback/queues/{queue['id']}/agreement/").json()
    assert figures["metric"] == "nominal" and figures["units"] == 4 and figures["labelled_rows"] == 3
    assert 0 < figures["alpha"] < 1  # three rows agreed, one split
    assert [(d["item"], d["resolved"], d["task"]) for d in figures["disagreements"]] == [
        (items[2], False, TEXTS[2])
    ]
    assert figures["per_intent"]["delivery_delay"] == 1.0
    progress = client_for(users["pm"]).get(f"/api/feedback/queues/{queue['id']}/").json()["progress"]
    assert progress == {"items": 4, "assignments": 8, "done": 8}
    exported = b"".join(
        client_for(users["pm"]).get(f"/api/feedback/queues/{queue['id']}/export/").streaming_content
    )
    lines = [json.loads(line) for line in exported.decode().splitlines()]
    assert len(lines) == 8 and {line["type"] for line in lines} == {"intents"}
    assert sorted(line["intents"] for line in lines if line["item"] == items[3]) == [[], []]


def test_labels_are_checked_and_only_assigned_annotators_give_them(queued):
    users, dataset, queue, items = queued
    item = items[0]
    a = users[holders(item)[0]]
    outsider = users[next(name for name in ("ann1", "ann2", "ann3") if name not in holders(item))]
    unknown = label(a, item, ["refund"])
    assert unknown.status_code == 400 and "refund" in unknown.json()["errors"]["intents"][0]
    assert label(a, item, ["damaged_item", "damaged_item"]).json()["errors"]["intents"] == [
        "names an intent twice"
    ]
    assert label(a, item, "damaged_item").status_code == 400
    assert "item" in label(outsider, item, ["damaged_item"]).json()["errors"]
    assert label(users["pm"], item, ["damaged_item"]).status_code == 403
    assert label(users["stranger"], item, ["damaged_item"]).status_code == 403
    assert not RowLabel.objects.exists()


def test_dataset_versions_and_queues_of_other_projects_are_out_of_reach(queued, people):
    users, dataset, queue, items = queued
    project, _ = people
    theirs = Dataset.objects.create(project_id=users["stranger"].memberships.get().project_id, name="theirs")
    their_version = add_rows(theirs, [{"text": "secret ticket"}], "uploaded")
    pm = client_for(users["pm"])
    path = f"/api/feedback/queues/{queue['id']}/enqueue-dataset/"
    refused = pm.post(path, {"version": their_version.pk}, format="json")
    assert refused.status_code == 400 and "version" in refused.json()["errors"]
    assert (
        pm.post(path, {"version": their_version.pk, "deployment": 999999}, format="json").status_code == 400
    )
    stranger = client_for(users["stranger"])
    assert stranger.post(path, {"version": dataset.versions.get().pk}, format="json").status_code == 404
    rating_queue = make_queue(users["pm"], project)
    wrong_kind = pm.post(
        f"/api/feedback/queues/{rating_queue['id']}/enqueue-dataset/",
        {"version": dataset.versions.get().pk},
        format="json",
    )
    assert wrong_kind.status_code == 400
    no_catalogue = Dataset.objects.create(project=project, name="bare")
    bare = add_rows(no_catalogue, [{"text": "what is this"}], "uploaded")
    nameless = pm.post(path, {"version": bare.pk}, format="json")
    assert nameless.status_code == 400 and "deployment" in nameless.json()["errors"]
    assert "secret ticket" not in str(pm.get(f"/api/feedback/queues/{queue['id']}/items/").json())
