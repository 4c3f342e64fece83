"""Progress, agreement (Krippendorff's alpha) and disagreements of a feedback queue (intents queues:
`intent_labels`)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db.models import Count, F, Q

from mase_web.feedback.intent_labels import intent_agreement, intent_disagreements
from mase_web.feedback.models import Assignment, FeedbackItem, FeedbackQueue, PairwiseJudgement, Rating
from training.agreement import alpha_by_unit_set, spread

RATING_SPREAD = 2  # ratings of one item this far apart (in stars) are a disagreement


def answers_of(queue: FeedbackQueue) -> dict[int, list]:
    """{item id: [value or choice, ...]} of every answer given in the queue."""
    if queue.kind == FeedbackQueue.Kind.PAIRWISE:
        rows = PairwiseJudgement.objects.filter(item__queue=queue).values_list("item_id", "choice")
    else:
        rows = Rating.objects.filter(item__queue=queue).values_list("item_id", "value")
    units: dict[int, list] = {}
    for item_id, value in rows.order_by("item_id", "annotator_id"):
        units.setdefault(item_id, []).append(value)
    return units


ANSWERS = {
    FeedbackQueue.Kind.RATING: "ratings",
    FeedbackQueue.Kind.PAIRWISE: "judgements",
    FeedbackQueue.Kind.INTENTS: "intent_labels",
}
"""The items' related name of each queue kind's answers."""


def progress(queue: FeedbackQueue) -> dict[str, int]:
    """items, assignments (answers wanted) and done (assigned answers given)."""
    answers = ANSWERS[queue.kind]
    assignments = Assignment.objects.filter(item__queue=queue)
    done = assignments.filter(**{f"item__{answers}__annotator": F("annotator")}).count()
    return {"items": queue.items.count(), "assignments": assignments.count(), "done": done}


def my_progress(queue: FeedbackQueue, user) -> dict[str, int]:
    answers = ANSWERS[queue.kind]
    mine = FeedbackItem.objects.filter(queue=queue, assignments__annotator=user).annotate(
        answered=Count(answers, filter=Q(**{f"{answers}__annotator": user}))
    )
    return {"assigned": mine.count(), "done": mine.filter(answered__gt=0).count()}


def agreement(queue: FeedbackQueue) -> dict[str, Any]:
    """alpha per the queue's kind: ordinal and interval for 1–5 ratings, nominal for A / B / tie."""
    if queue.kind == FeedbackQueue.Kind.INTENTS:
        return intent_agreement(queue)
    units = answers_of(queue)
    if queue.kind == FeedbackQueue.Kind.PAIRWISE:
        return {"metric": "nominal", **alpha_by_unit_set(units, "nominal")}
    ordinal = alpha_by_unit_set(units, "ordinal")
    return {"metric": "ordinal", **ordinal, "interval_alpha": alpha_by_unit_set(units, "interval")["alpha"]}


def disagreements(queue: FeedbackQueue) -> list[dict[str, Any]]:
    """Items whose answers split: ratings spread >= 2 stars, or a pair judged differently; widest first.

    For pairs the spread is the share of answers that differ from the most common one (intents queues:
    `intent_labels.intent_disagreements`).
    """
    if queue.kind == FeedbackQueue.Kind.INTENTS:
        return intent_disagreements(queue)
    rows = []
    for item_id, values in answers_of(queue).items():
        if len(values) < 2:
            continue
        if queue.kind == FeedbackQueue.Kind.PAIRWISE:
            width = 1 - Counter(values).most_common(1)[0][1] / len(values)
            if width == 0:
                continue
        else:
            width = spread(values)
            if width < RATING_SPREAD:
                continue
        rows.append({"item": item_id, "values": values, "spread": width})
    rows.sort(key=lambda row: (-row["spread"], row["item"]))
    return rows
