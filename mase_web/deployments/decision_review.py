"""An operator's review of one decision: mark it ok, wrong (with a reason) or escalated, and queue a
wrong one for annotation in one step (into the project's "Decisions marked wrong" rating queue, made
on first use, or into a rating queue the caller names)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from mase_web.deployments.models import DecisionStep

WRONG_QUEUE_NAME = "Decisions marked wrong"
WRONG_QUEUE_GUIDELINES = (
    "An operator marked this decision wrong (their reason is in the item). Rate how good the decision was, "
    "1 (harmful) to 5 (right after all), and tag what went wrong."
)


class ReviewSerializer(serializers.Serializer):
    """POST body of /api/decisions/<id>/review/: a status, and a reason (required for "wrong")."""

    status = serializers.ChoiceField(choices=DecisionStep.Review.choices)
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True, trim_whitespace=True)

    def validate(self, data: dict) -> dict:
        if data["status"] == DecisionStep.Review.WRONG and not data.get("reason"):
            raise serializers.ValidationError({"reason": ["say why the decision is wrong"]})
        return data


class AnnotateSerializer(serializers.Serializer):
    queue = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text=f"a rating queue of the project (default: {WRONG_QUEUE_NAME!r})",
    )


def record_review(step: DecisionStep, user, data: dict) -> DecisionStep:
    """Stores the review; "unreviewed" clears it."""
    unreviewed = data["status"] == DecisionStep.Review.UNREVIEWED
    step.review_status = data["status"]
    step.review_reason = "" if unreviewed else data.get("reason", "")
    step.reviewed_by = None if unreviewed else user
    step.reviewed_at = None if unreviewed else timezone.now()
    step.save(update_fields=["review_status", "review_reason", "reviewed_by", "reviewed_at"])
    return step


def _queue_for(step: DecisionStep, user, queue_id: int | None):
    from mase_web.feedback.facade import FeedbackQueue

    project_id = step.episode.deployment.project_id
    rating = FeedbackQueue.Kind.RATING
    if queue_id is not None:
        queue = FeedbackQueue.objects.filter(pk=queue_id, project_id=project_id, kind=rating).first()
        if queue is None:
            raise ValidationError({"queue": [f"no rating queue {queue_id} in this decision's project"]})
        return queue
    queue = FeedbackQueue.objects.filter(project_id=project_id, kind=rating, name=WRONG_QUEUE_NAME).first()
    return queue or FeedbackQueue.objects.create(
        project_id=project_id,
        name=WRONG_QUEUE_NAME,
        kind=rating,
        guidelines=WRONG_QUEUE_GUIDELINES,
        tags=["wrong action", "wrong agent", "should escalate", "unclear"],
        created_by=user,
    )


@transaction.atomic
def queue_for_annotation(step: DecisionStep, user, queue_id: int | None) -> dict:
    """Puts a decision marked wrong in a rating queue as a step item; returns where it went."""
    from mase_web.feedback.facade import (
        FeedbackItem,
        add_items,
        deployment_episode_key,
        single_step_snapshot,
        step_key,
    )

    if step.review_status != DecisionStep.Review.WRONG:
        raise ValidationError({"review_status": ["only a decision marked wrong is queued for annotation"]})
    episode = step.episode
    if episode.status == episode.Status.RUNNING:
        raise ValidationError({"episode": ["the episode is still running; queue it once it has ended"]})
    queue = _queue_for(step, user, queue_id)
    snapshot = single_step_snapshot(episode, step)
    snapshot["meta"]["review"] = {"status": step.review_status, "reason": step.review_reason}
    key = step_key(deployment_episode_key(episode), step)
    item = FeedbackItem(
        kind=FeedbackItem.Kind.STEP, episode_key=key, snapshot=snapshot, episode=episode, step=step
    )
    saved = add_items(queue, [item])
    held = saved[0] if saved else queue.items.filter(episode_key=key).first()
    return {
        "queue": queue.pk,
        "queue_name": queue.name,
        "item": held.pk if held else None,
        "added": bool(saved),
    }
