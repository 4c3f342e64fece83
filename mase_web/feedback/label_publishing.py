"""When agreed intent labels become a dataset version: once per labelling session, not once per row
(decision 0032).

A row's agreed label (`intent_labels.resolve`) first waits on its `RowLabel` as *pending*
(``landed = {"pending": true, "dataset", "by"}``). The pending labels of a queue are published together — one
new version of each dataset they belong to, every row in place with its split, its annotators and its
source — when the annotator whose answer completed a label has no item of that queue left to answer (the end
of their session), and otherwise by the `publish_stale` sweep (Celery beat) once the oldest has waited
`PUBLISH_AFTER_S`: a session left half done still lands, at most one version per dataset per sweep.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from mase_web.datasets.facade import Dataset, RowsRefused, relabel_rows
from mase_web.feedback.models import FeedbackItem, FeedbackQueue, RowLabel

PROVENANCE = "annotated"
PUBLISH_AFTER_S = 600
"""A pending label older than this is published by the sweep, whatever its session does."""


def pending(item: FeedbackItem, by) -> dict[str, Any]:
    """What a just-agreed label's ``landed`` holds until it is published."""
    meta = item.snapshot.get("meta") or {}
    return {"pending": True, "dataset": meta.get("dataset"), "by": by.pk if by is not None else None}


def session_over(queue: FeedbackQueue, annotator) -> bool:
    """Whether ``annotator`` has answered every item of ``queue`` assigned to them."""
    mine = FeedbackItem.objects.filter(queue=queue, assignments__annotator=annotator)
    return not mine.exclude(intent_labels__annotator=annotator).exists()


def publish_queue(queue: FeedbackQueue) -> int:
    """Publish every pending label of ``queue``; returns how many were published."""
    return publish(RowLabel.objects.filter(item__queue=queue, landed__pending=True))


def publish_stale(now=None) -> int:
    """Publish the queues whose oldest pending label has waited `PUBLISH_AFTER_S` (the sweep)."""
    cutoff = (now or timezone.now()) - timedelta(seconds=PUBLISH_AFTER_S)
    queues = RowLabel.objects.filter(landed__pending=True, created_at__lte=cutoff).values("item__queue")
    return publish(RowLabel.objects.filter(landed__pending=True, item__queue__in=queues))


def publish(labels: Iterable[RowLabel]) -> int:
    """Land ``labels`` (the pending ones among them): one new version per dataset. Returns how many landed."""
    with transaction.atomic():
        locked = RowLabel.objects.select_for_update().filter(
            pk__in=[label.pk for label in labels], landed__pending=True
        )
        by_dataset: dict[Any, list[RowLabel]] = defaultdict(list)
        for label in locked.select_related("item").order_by("created_at", "id"):
            by_dataset[label.landed.get("dataset")].append(label)
        return sum(_publish_dataset(dataset_id, group) for dataset_id, group in by_dataset.items())


def _publish_dataset(dataset_id: Any, labels: list[RowLabel]) -> int:
    dataset = Dataset.objects.filter(pk=dataset_id).first() if isinstance(dataset_id, int) else None
    if dataset is None:  # deleted since the rows were queued: the labels stay in the queue
        RowLabel.objects.filter(pk__in=[label.pk for label in labels]).update(landed={})
        return 0
    authors = get_user_model().objects.in_bulk([label.landed.get("by") for label in labels])
    while labels:
        docs = [_label_doc(label, authors.get(label.landed.get("by"))) for label in labels]
        # the version's author: the session's annotator (a sweep landing several people's labels names none)
        by = {doc["by"] for doc in docs}
        try:
            version = relabel_rows(dataset, docs, PROVENANCE, by=by.pop() if len(by) == 1 else None)
        except RowsRefused as refused:  # e.g. the catalogue changed since: those stay in the queue, said why
            bad = {int(e["index"]) for e in refused.errors} & set(range(len(labels)))
            for index in bad or range(len(labels)):
                _set(labels[index], {"dataset": dataset.pk, "refused": str(refused)})
            labels = [label for index, label in enumerate(labels) if bad and index not in bad]
            continue
        for label, doc in zip(labels, docs, strict=True):
            stored = version.rows.filter(source_ref=doc["source_ref"]).order_by("-pk").first()
            _set(label, {
                "dataset": dataset.pk, "dataset_name": dataset.name, "version": version.pk,
                "version_number": version.number, "row": stored.pk if stored else None,
            })  # fmt: skip
        return len(labels)
    return 0


def _label_doc(label: RowLabel, author) -> dict[str, Any]:
    """The label as `relabel_rows` takes it: the row, its intents, the annotators, its source and author."""
    item = label.item
    meta = item.snapshot.get("meta") or {}
    metadata = {**(meta.get("metadata") or {}), "annotated_by": list(label.annotators)}
    if not label.intents:
        metadata["out_of_scope"] = True
    return {
        "row": meta.get("row"), "intents": list(label.intents), "metadata": metadata,
        "source_ref": f"feedback/queue/{item.queue_id}/item/{item.pk}", "by": author,
    }  # fmt: skip


def _set(label: RowLabel, landed: dict[str, Any]) -> None:
    label.landed = landed
    label.save(update_fields=["landed"])
