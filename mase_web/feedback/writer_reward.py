"""A deployment's ratings reward model as the reward of its team's writer (decision 0029).

The reward model that speaks for a deployment is the newest trained one of a rating queue holding that
deployment's episodes. It scores a reply as it scores a rated episode: the episode's snapshot text
(`snapshot_text`: task, answer, reply, decisions), with the reply replaced by the one to judge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mase_web.feedback.models import FeedbackItem, FeedbackQueue, RewardModel
from mase_web.feedback.snapshots import episode_snapshot, snapshot_text


@dataclass(frozen=True)
class RatingsReward:
    """A trained ratings reward model of a deployment: its row id, held-out figures and a scorer."""

    model_id: int
    metrics: dict
    score: Callable[[list[str]], list[float]]  # snapshot texts -> rewards in [0, 1]


def deployment_ratings_reward(deployment_id: int) -> RatingsReward | None:
    """The newest succeeded reward model of a rating queue with this deployment's episodes (None: none)."""
    queues = (
        FeedbackItem.objects.filter(
            episode_key__startswith=f"deployment/{deployment_id}/", queue__kind=FeedbackQueue.Kind.RATING
        )
        .values_list("queue_id", flat=True)
        .distinct()
    )
    model = (
        RewardModel.objects.filter(queue_id__in=list(queues), state=RewardModel.State.SUCCEEDED)
        .order_by("-finished_at", "-id")
        .first()
    )
    if model is None:
        return None
    from mase_web.feedback.training_job import load_scorer

    scorer = load_scorer(model, text_of=lambda key: None)
    return RatingsReward(model.pk, dict(model.metrics or {}), scorer.score_texts)


def reply_texts(episode, replies: list[str]) -> list[str]:
    """What the reward model reads for each of ``replies`` given as the reply to ``episode``."""
    snapshot = episode_snapshot(episode)
    base = snapshot.get("reply") or {"backend": "", "parts": []}
    return [snapshot_text({**snapshot, "reply": {**base, "text": reply}}) for reply in replies]
