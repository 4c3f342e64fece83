"""JSON Lines export of a queue's feedback: one record per rating, pairwise judgement or intent label."""

from __future__ import annotations

from collections.abc import Iterator

from mase_web.feedback.models import FeedbackQueue, IntentLabel, PairwiseJudgement, Rating


def _item_fields(item) -> dict:
    return {
        "queue": item.queue_id,
        "item": item.pk,
        "kind": item.kind,
        "episode_key": item.episode_key,
        "task": item.snapshot.get("task", ""),
    }


def export_lines(queue: FeedbackQueue) -> Iterator[dict]:
    """Ratings, then judgements, then intent labels, in item order; each names the item, the annotator and
    the values."""
    ratings = Rating.objects.filter(item__queue=queue).select_related("item", "annotator")
    for r in ratings.order_by("item_id", "annotator_id").iterator():
        yield {
            "type": "rating",
            **_item_fields(r.item),
            "annotator": r.annotator.username,
            "value": r.value,
            "tags": r.tags,
            "comment": r.comment,
            "updated_at": r.updated_at.isoformat(),
        }
    judgements = PairwiseJudgement.objects.filter(item__queue=queue).select_related("item", "annotator")
    for j in judgements.order_by("item_id", "annotator_id").iterator():
        yield {
            "type": "pairwise",
            **_item_fields(j.item),
            "episode_key_b": j.item.episode_key_b,
            "annotator": j.annotator.username,
            "choice": j.choice,
            "comment": j.comment,
            "updated_at": j.updated_at.isoformat(),
        }
    labels = IntentLabel.objects.filter(item__queue=queue).select_related("item", "annotator")
    for label in labels.order_by("item_id", "annotator_id").iterator():
        yield {
            "type": "intents",
            **_item_fields(label.item),
            "annotator": label.annotator.username,
            "intents": label.intents,
            "updated_at": label.updated_at.isoformat(),
        }
