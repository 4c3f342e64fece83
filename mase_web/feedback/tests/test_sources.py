"""Feedback enters learning: the database source of the human_feedback term, wired into web runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mase_web.accounts.models import Project
from mase_web.feedback.models import Assignment, FeedbackItem, FeedbackQueue, Rating
from mase_web.feedback.sources import DatabaseHumanFeedback, project_feedback
from mase_web.feedback.tests.conftest import snapshot
from training.reward import HumanFeedbackSource, RewardComposer

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "number_guessing.json"


def rated(queue, key: str, values: list[int], users, kind=FeedbackItem.Kind.EPISODE) -> FeedbackItem:
    item = FeedbackItem.objects.create(queue=queue, kind=kind, episode_key=key, snapshot=snapshot(key))
    for user, value in zip(users, values, strict=False):
        Assignment.objects.create(item=item, annotator=user)
        Rating.objects.create(item=item, annotator=user, value=value)
    return item


@pytest.mark.django_db
def test_a_rated_episode_key_yields_its_normalised_mean_rating(people):
    project, users = people
    annotators = [users["ann1"], users["ann2"], users["ann3"]]
    queue = FeedbackQueue.objects.create(project=project, name="q", overlap=3)
    rated(queue, "7/12", [5, 4, 3], annotators)  # mean 4 -> (4 - 1) / 4
    rated(queue, "deployment/1/req-1#0:router", [1], annotators, kind=FeedbackItem.Kind.STEP)
    other = FeedbackQueue.objects.create(project=Project.objects.create(name="other"), name="q")
    rated(other, "7/13", [5], annotators)

    source = DatabaseHumanFeedback(project.pk, refresh_seconds=0)
    assert isinstance(source, HumanFeedbackSource)
    assert source.rating("7/12") == pytest.approx(0.75)
    assert source.rating("7/99") is None  # nobody rated it
    assert source.rating("deployment/1/req-1#0:router") is None  # steps are not episodes
    assert source.rating("7/13") is None  # another project's rating
    Rating.objects.filter(item__episode_key="7/12").update(value=1)
    assert source.rating("7/12") == 0.0  # re-read after refresh_seconds

    composer = RewardComposer({"task": {"p": 1.0}, "human_feedback": {"p": 2.0}}, human_feedback=source)
    assert composer.compose({"task": 1.0}, "p", episode_key="7/12") == pytest.approx(1.0)
    Rating.objects.filter(item__episode_key="7/12").update(value=5)
    assert composer.compose({"task": 1.0}, "p", episode_key="7/12") == pytest.approx(3.0)
    assert isinstance(project_feedback(project.pk), DatabaseHumanFeedback)  # no reward model yet


def mappo_spec() -> dict:
    """The number-guessing team trained by MAPPO for one small batch, human feedback weighted 5."""
    doc = json.loads(EXAMPLE.read_text())
    doc["training"].update(
        {"algorithm": "mappo", "episodes": 16, "batch_size": 16, "eval_every": 0, "checkpoint_every": 0}
    )
    phases = {p["name"]: 1.0 for p in doc["evolution"]["phases"]}
    doc["reward"] = {
        "preset": None,
        "terms": [
            {"term": "task", "weights": phases},
            {"term": "human_feedback", "weights": {name: 5.0 for name in phases}},
        ],
    }
    return doc


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_training_runs_launched_from_the_web_read_the_ratings(people):
    """Two identical runs (same seed, same first batch); the first run's episodes are all rated 5 stars.

    The web's run execution hands the project's ratings to the trainer, so the rated run's first batch
    returns more: 5 (the weight) times 1.0 (a 5-star rating) per rewarded agent per episode.
    """
    from mase_web.runs.execution import execute
    from mase_web.runs.models import Run, RunEvent

    project, users = people
    rated_run = Run.objects.create(project=project, name="rated", spec=mappo_spec())
    plain_run = Run.objects.create(project=project, name="plain", spec=mappo_spec())
    queue = FeedbackQueue.objects.create(project=project, name="run episodes", overlap=1)
    for episode in range(0, 40):
        rated(queue, f"{rated_run.pk}/{episode}", [5], [users["ann1"]])

    for run in (rated_run, plain_run):
        assert execute(run.pk, f"test-{run.pk}") == Run.State.SUCCEEDED, Run.objects.get(pk=run.pk).error

    def first_return(run) -> float:
        event = (
            RunEvent.objects.filter(run=run, type="metrics", payload__has_key="return")
            .order_by("seq")
            .first()
        )
        return event.payload["return"]

    gain = first_return(rated_run) - first_return(plain_run)
    assert gain >= 5.0 - 1e-6, gain
    assert gain / 5.0 == pytest.approx(round(gain / 5.0))  # whole 5-point bonuses, nothing else changed
