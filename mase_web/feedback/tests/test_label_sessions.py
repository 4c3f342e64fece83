"""Agreed intent labels become one dataset version per labelling session, not one per row (decision 0032): a
label waits as pending until the annotator who completed it has answered every item of the queue assigned to
them; a session left half done is published by the sweep once its oldest label has waited long enough."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from mase_web.datasets.models import Dataset, DatasetRow
from mase_web.datasets.service import add_rows
from mase_web.feedback.label_publishing import PUBLISH_AFTER_S, publish_stale
from mase_web.feedback.models import Assignment, RowLabel
from mase_web.feedback.tests.conftest import client_for, make_queue

pytestmark = pytest.mark.django_db

CATALOGUE = {"intents": [{"name": "late", "description": "A parcel that is late."}]}


@pytest.fixture
def queued(people):
    """Six unlabelled rows in an intents queue with overlap 1: two for each of the three annotators."""
    project, users = people
    dataset = Dataset.objects.create(project=project, name="own tickets", catalogue=CATALOGUE)
    version = add_rows(dataset, [{"text": f"parcel {i} is late"} for i in range(6)], "uploaded")
    queue = make_queue(users["pm"], project, kind="intents", tags=[], name="label", overlap=1)
    path = f"/api/feedback/queues/{queue['id']}/enqueue-dataset/"
    assert client_for(users["pm"]).post(path, {"version": version.pk}, format="json").status_code == 201
    return users, dataset


def session(users, name: str) -> list[int]:
    return list(
        Assignment.objects.filter(annotator=users[name]).order_by("item_id").values_list("item_id", flat=True)
    )


def label(user, item: int) -> dict:
    answer = client_for(user).post(
        "/api/feedback/intent-labels/", {"item": item, "intents": ["late"]}, format="json"
    )
    assert answer.status_code == 201, answer.content
    return answer.json()


def test_a_sessions_labels_land_together_in_one_version(queued):
    users, dataset = queued
    first, last = session(users, "ann1")
    assert label(users["ann1"], first)["landed"]["pending"] is True
    assert dataset.versions.count() == 1  # agreed, waiting for the rest of the session
    landed = label(users["ann1"], last)["landed"]  # the session's last answer publishes it
    assert dataset.versions.count() == 2 and landed["version_number"] == 2
    rows = DatasetRow.objects.filter(version__dataset=dataset, version__number=2, provenance="annotated")
    assert rows.count() == 2 and {r.by for r in rows} == {users["ann1"]}
    assert dataset.versions.get(number=2).created_by == users["ann1"]  # the page said "annotated … by –"
    assert RowLabel.objects.get(item_id=first).landed["version"] == landed["version"]


def test_a_session_left_half_done_is_published_by_the_sweep(queued):
    users, dataset = queued
    first, _ = session(users, "ann2")
    label(users["ann2"], first)
    assert publish_stale() == 0 and dataset.versions.count() == 1  # not waited long enough yet
    later = timezone.now() + timedelta(seconds=PUBLISH_AFTER_S + 1)
    assert publish_stale(later) == 1 and dataset.versions.count() == 2
    assert RowLabel.objects.get(item_id=first).landed["version_number"] == 2
    assert publish_stale(later) == 0  # published once


def test_beat_sends_the_sweep_to_a_task_the_worker_registers():
    import mase_web.feedback.tasks  # noqa: F401 - what the worker's autodiscovery imports
    from mase_web.celery import app

    names = [entry["task"] for entry in app.conf.beat_schedule.values()]
    assert "feedback.publish_stale_labels" in names and "feedback.publish_stale_labels" in app.tasks
