"""Annotators who join a project after its queues were filled get their items without a call to `assign/`."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from mase_web.accounts.models import Membership, Project, Role
from mase_web.feedback.models import Assignment
from mase_web.feedback.tests.conftest import enqueue, make_queue
from mase_web.runs.tests.conftest import client_for

pytestmark = pytest.mark.django_db


def my_item_ids(user) -> set[int]:
    response = client_for(user).get("/api/feedback/my-items/")
    assert response.status_code == 200, response.content
    body = response.json()
    return {item["id"] for item in (body["results"] if isinstance(body, dict) else body)}


def test_an_annotator_joining_a_project_without_annotators_gets_every_item(people):
    _, users = people
    project = Project.objects.create(name="fresh")
    Membership.objects.create(project=project, user=users["pm"], role=Role.PRODUCT_MANAGER)
    queue = make_queue(users["pm"], project, overlap=2)
    items = enqueue(users["pm"], queue["id"], ["a", "b", "c"])
    assert Assignment.objects.filter(item__queue_id=queue["id"]).count() == 0  # nobody to give them to

    newcomer = get_user_model().objects.create_user("newcomer")
    Membership.objects.create(project=project, user=newcomer, role=Role.ANNOTATOR)
    assert my_item_ids(newcomer) == set(items)


def test_joining_and_becoming_an_annotator_top_up_balanced_and_idempotently(people):
    project, users = people
    queue = make_queue(users["pm"], project, overlap=5)  # more than the three annotators there are
    items = enqueue(users["pm"], queue["id"], ["a", "b", "c"])
    assert Assignment.objects.count() == 9

    newcomer = get_user_model().objects.create_user("newcomer")
    membership = Membership.objects.create(project=project, user=newcomer, role=Role.ANNOTATOR)
    assert my_item_ids(newcomer) == set(items) and Assignment.objects.count() == 12
    membership.save()  # saving again assigns nothing twice
    assert Assignment.objects.count() == 12

    operator = Membership.objects.get(project=project, user=users["op"])
    assert my_item_ids(users["op"]) == set()
    operator.role = Role.ANNOTATOR
    operator.save()
    assert my_item_ids(users["op"]) == set(items) and Assignment.objects.count() == 15


def test_other_roles_and_other_projects_get_nothing(people):
    project, users = people
    queue = make_queue(users["pm"], project, overlap=5)
    enqueue(users["pm"], queue["id"], ["a", "b"])
    before = Assignment.objects.count()
    viewer = get_user_model().objects.create_user("viewer")
    Membership.objects.create(project=project, user=viewer, role=Role.OPERATOR)
    Membership.objects.create(project=Project.objects.create(name="other"), user=viewer, role=Role.ANNOTATOR)
    assert Assignment.objects.count() == before and my_item_ids(viewer) == set()
