"""Who rates which item: each item to `overlap` distinct annotators of the queue's project.

Deterministic and balanced: items are taken in id order and each goes to the annotators with the fewest
assignments in the queue so far (ties by user id), so loads never differ by more than one when the
overlap is constant. Topping up (new annotators, a raised overlap) uses the same rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from django.db import transaction

from mase_web.accounts.facade import Membership, Role
from mase_web.feedback.models import Assignment, FeedbackItem, FeedbackQueue


def annotators_of(project_id: int) -> list[int]:
    """User ids of the project's annotators, in id order."""
    return list(
        Membership.objects.filter(project_id=project_id, role=Role.ANNOTATOR)
        .order_by("user_id")
        .values_list("user_id", flat=True)
    )


@transaction.atomic
def assign(queue: FeedbackQueue, items: Iterable[FeedbackItem] | None = None) -> int:
    """Give every item (default: all of the queue's) up to `overlap` annotators; returns how many new."""
    FeedbackQueue.objects.select_for_update().filter(pk=queue.pk).first()  # one assigner per queue
    annotators = annotators_of(queue.project_id)
    existing = Assignment.objects.filter(item__queue=queue).values_list("item_id", "annotator_id")
    holders: dict[int, set[int]] = {}
    load: Counter[int] = Counter({a: 0 for a in annotators})
    for item_id, annotator_id in existing:
        holders.setdefault(item_id, set()).add(annotator_id)
        if annotator_id in load:
            load[annotator_id] += 1
    wanted = min(queue.overlap, len(annotators))
    todo = sorted(items if items is not None else queue.items.all(), key=lambda item: item.pk)
    new: list[Assignment] = []
    for item in todo:
        have = holders.setdefault(item.pk, set())
        missing = wanted - len(have & set(annotators))
        candidates = sorted((a for a in annotators if a not in have), key=lambda a: (load[a], a))
        for annotator in candidates[: max(0, missing)]:
            new.append(Assignment(item=item, annotator_id=annotator))
            have.add(annotator)
            load[annotator] += 1
    Assignment.objects.bulk_create(new)
    return len(new)
