"""A correction to "none of these": the ticket lands out of scope in the deployment's dataset (not as an
unlabelled row), the review says so, it never enters the evaluation slice, and the deployment's proposed
intents are drawn from it; naming intents or an owner beside it is a 400 on its field."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.datasets.models import DatasetRow
from mase_web.deployments.evolution import labelled_traffic
from mase_web.deployments.proposals import unplaced_texts
from mase_web.deployments.tests.test_corrections import logged_episode, post

pytestmark = pytest.mark.django_db


def test_a_ticket_corrected_to_none_of_these_lands_out_of_scope_and_feeds_the_proposals(team):
    project, users = team
    episode, step = logged_episode(project, text="I was charged twice for the same order")
    answer = post(users[Role.OPERATOR], f"/api/decisions/{step.pk}/correct/", {"none_of_these": True})
    assert answer.status_code == 201, answer.content
    assert answer.json()["intents"] == [] and answer.json()["owner"] == ""
    step.refresh_from_db()
    assert (
        step.review_status == "wrong" and step.review_reason == "corrected: none of the catalogue's intents"
    )
    row = DatasetRow.objects.get(pk=answer.json()["dataset_row"]["row"])
    assert row.intents == [] and row.metadata["out_of_scope"] is True and row.provenance == "corrected"
    assert unplaced_texts(episode.deployment) == ["I was charged twice for the same order"]
    assert labelled_traffic(episode.deployment) == []  # no label to judge a generation on


def test_none_of_these_beside_intents_or_an_owner_is_refused_on_its_field(team):
    project, users = team
    _, step = logged_episode(project)
    path = f"/api/decisions/{step.pk}/correct/"
    both = post(users[Role.OPERATOR], path, {"none_of_these": True, "intents": ["delivery_delay"]})
    assert both.status_code == 400 and "none_of_these" in both.json()["errors"]
    nothing = post(users[Role.OPERATOR], path, {})
    assert nothing.status_code == 400 and "none of these" in nothing.json()["errors"]["intents"][0]
