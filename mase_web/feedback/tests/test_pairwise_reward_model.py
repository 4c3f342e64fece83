"""A pairwise queue's judgements train a Bradley–Terry reward model (ties skipped): the job reports its
held-out pairwise accuracy with the number of held-out pairs and a warning when few, and the model then
scores queued episodes nobody judged, as the reward term of the next run."""

from __future__ import annotations

import random

import pytest

from mase_web.feedback.models import FeedbackItem, FeedbackQueue, PairwiseJudgement, RewardModel
from mase_web.feedback.sources import WithRewardModel, project_feedback
from mase_web.feedback.tests.conftest import client_for, make_queue, snapshot
from mase_web.feedback.tests.test_enqueue_and_reward_model import BAD, GOOD
from mase_web.feedback.training_job import judged_pairs, train


def pair(queue_id: int, i: int, good_is_a: bool) -> FeedbackItem:
    good = ("good", snapshot(f"ticket {i}", answer=GOOD.format(i)))
    bad = ("bad", snapshot(f"ticket {i}", answer=BAD.format(i)))
    (name_a, a), (name_b, b) = (good, bad) if good_is_a else (bad, good)
    return FeedbackItem.objects.create(
        queue_id=queue_id, kind="pair", episode_key=f"run/{i}-{name_a}", snapshot=a,
        episode_key_b=f"run/{i}-{name_b}", snapshot_b=b,
    )  # fmt: skip


def judged_queue(people, n: int) -> FeedbackQueue:
    """n pairs judged for the helpful answer (by two annotators, one of them now and then saying "tie"),
    two pairs both annotators called a tie, one split A/B, and one pair nobody judged yet."""
    project, users = people
    queue_id = make_queue(users["pm"], project, kind="pairwise", overlap=2, tags=[])["id"]
    rng = random.Random(5)
    for i in range(n + 4):
        good_is_a = rng.random() < 0.5
        item = pair(queue_id, i, good_is_a)
        winner = "A" if good_is_a else "B"
        if i < n:
            votes = [winner, winner if i % 3 else "tie"]
        elif i < n + 2:
            votes = ["tie", "tie"]
        elif i == n + 2:
            votes = ["A", "B"]
        else:
            continue  # queued, not judged
        for who, choice in zip(("ann1", "ann2"), votes, strict=True):
            PairwiseJudgement.objects.create(item=item, annotator=users[who], choice=choice)
    return FeedbackQueue.objects.get(pk=queue_id)


@pytest.mark.django_db
def test_judged_pairs_are_majority_verdicts_in_item_order(people):
    queue = judged_queue(people, n=6)
    texts_a, texts_b, verdicts = judged_pairs(queue)
    assert len(texts_a) == len(texts_b) == len(verdicts) == 9  # the unjudged pair is not there
    assert verdicts[6:] == ["tie", "tie", "tie"] and "tie" not in verdicts[:6]
    items = list(FeedbackItem.objects.filter(queue=queue).order_by("id"))[:6]
    for item, text_a, verdict in zip(items, texts_a, verdicts, strict=False):
        assert (verdict == "A") == item.episode_key.endswith("good") and item.snapshot["answer"] in text_a


@pytest.mark.slow
@pytest.mark.django_db
def test_a_pairwise_queue_trains_a_bradley_terry_reward_model_that_scores_unjudged_episodes(
    people, monkeypatch
):
    from mase_web.feedback import api

    queue = judged_queue(people, n=24)
    pm = client_for(people[1]["pm"])
    monkeypatch.setattr(api, "dispatch", lambda model: None)  # the worker's job, run in this process below
    started = pm.post(f"/api/feedback/queues/{queue.pk}/reward-models/")
    assert started.status_code == 201, started.content
    model_id = started.json()["id"]
    assert train(model_id) == "succeeded", RewardModel.objects.get(pk=model_id).message

    body = pm.get(f"/api/feedback/reward-models/{model_id}/").json()
    metrics = body["metrics"]
    assert metrics["head"] == "pairwise" and metrics["baseline_accuracy"] == 0.5
    assert (metrics["n_train"], metrics["n_heldout"], metrics["n_ties"]) == (18, 6, 3)
    assert metrics["accuracy"] >= 0.8
    assert body["message"].startswith(f"held-out pairwise accuracy {metrics['accuracy']:.0%} on 6 pairs")
    assert body["warning"].startswith("only 6 held-out pairs") and "judge more pairs" in body["warning"]
    assert body["warning"] in body["message"]

    # As a reward term: both episodes of the pair nobody judged are scored, the helpful one higher.
    source = project_feedback(queue.project_id)
    assert isinstance(source, WithRewardModel)
    unjudged = FeedbackItem.objects.filter(queue=queue, judgements__isnull=True).get()
    good, bad = sorted([unjudged.episode_key, unjudged.episode_key_b], key=lambda k: not k.endswith("good"))
    assert source.rating(good) > 0.5 > source.rating(bad)
    assert source.rating("run/never-queued") is None
