"""Human feedback for training runs launched from the web: the `HumanFeedbackSource` over ratings.

`DatabaseHumanFeedback.rating(episode_key)` is the mean 1–5 rating of the project's episode items with
that key, normalised to [0, 1] as (r - 1) / 4; None when nobody rated it. The table is read in one query
and re-read at most every `refresh_seconds`, so a long run sees new ratings without a query per episode.
When nobody rated an episode but the project has a trained reward model (of ratings or of pairwise
judgements) and the episode's text is known (it was queued, alone or in a pair), the reward model's
prediction stands in (`WithRewardModel`).
"""

from __future__ import annotations

import time

from django.db.models import Avg

from mase_web.feedback.models import FeedbackItem, Rating, RewardModel
from mase_web.feedback.snapshots import snapshot_text

STARS = 5


def normalise(mean_rating: float) -> float:
    return (float(mean_rating) - 1.0) / (STARS - 1)


class DatabaseHumanFeedback:
    def __init__(self, project_id: int, refresh_seconds: float = 30.0):
        self.project_id, self.refresh_seconds = project_id, refresh_seconds
        self._ratings: dict[str, float] = {}
        self._loaded_at: float | None = None

    def _load(self) -> None:
        rows = (
            Rating.objects.filter(
                item__queue__project_id=self.project_id, item__kind=FeedbackItem.Kind.EPISODE
            )
            .values("item__episode_key")
            .annotate(mean=Avg("value"))
        )
        self._ratings = {row["item__episode_key"]: normalise(row["mean"]) for row in rows}
        self._loaded_at = time.monotonic()

    def rating(self, episode_key: str) -> float | None:
        if self._loaded_at is None or time.monotonic() - self._loaded_at >= self.refresh_seconds:
            self._load()
        return self._ratings.get(episode_key)


class WithRewardModel:
    """Human ratings first; the project's newest reward model for queued episodes nobody rated yet."""

    def __init__(self, human: DatabaseHumanFeedback, model: RewardModel):
        self.human, self.model = human, model
        self._scorer = None
        self._texts: dict[str, str] = {}
        self._texts_at: float | None = None

    def _text_of(self, episode_key: str) -> str | None:
        now = time.monotonic()
        if self._texts_at is None or now - self._texts_at >= self.human.refresh_seconds:
            items = FeedbackItem.objects.filter(
                queue__project_id=self.human.project_id,
                kind__in=[FeedbackItem.Kind.EPISODE, FeedbackItem.Kind.PAIR],
            ).values_list("episode_key", "snapshot", "episode_key_b", "snapshot_b")
            texts: dict[str, str] = {}
            for key, snapshot, key_b, snapshot_b in items:  # both episodes of a pair are queued episodes
                if key_b and snapshot_b:
                    texts[key_b] = snapshot_text(snapshot_b)
                texts[key] = snapshot_text(snapshot)
            self._texts = texts
            self._texts_at = now
        return self._texts.get(episode_key)

    def _reward_model(self):
        if self._scorer is None:  # the backbone loads only when an unrated, queued episode asks
            from mase_web.feedback.training_job import load_scorer

            self._scorer = load_scorer(self.model, text_of=self._text_of)
        return self._scorer

    def rating(self, episode_key: str) -> float | None:
        human = self.human.rating(episode_key)
        if human is not None or self._text_of(episode_key) is None:
            return human
        return self._reward_model().rating(episode_key)


def project_feedback(project_id: int):
    """The human-feedback source of a training run in `project_id`."""
    human = DatabaseHumanFeedback(project_id)
    model = (
        RewardModel.objects.filter(queue__project_id=project_id, state=RewardModel.State.SUCCEEDED)
        .order_by("-finished_at", "-id")
        .first()
    )
    return human if model is None else WithRewardModel(human, model)
