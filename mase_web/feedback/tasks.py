"""Celery tasks of the feedback app: training a reward model on the cpu queue; publishing agreed intent labels
that waited too long for their session to end (Celery beat)."""

from __future__ import annotations

from celery import shared_task

from mase_web.feedback.label_publishing import publish_stale
from mase_web.feedback.models import RewardModel


@shared_task(name="feedback.train_reward_model", acks_late=True, reject_on_worker_lost=True)
def train_reward_model(model_id: int) -> str:
    from mase_web.feedback.training_job import train

    return train(model_id)


def dispatch(model: RewardModel) -> str:
    result = train_reward_model.apply_async((model.pk,), queue="cpu")
    RewardModel.objects.filter(pk=model.pk).update(task_id=result.id)
    return result.id


@shared_task(name="feedback.publish_stale_labels")
def publish_stale_labels() -> int:
    return publish_stale()
