"""Intent annotation: unlabelled dataset rows queued for annotators, who choose each row's intents; the
label the annotators agree on lands in the row's dataset.

An *intents* queue holds *row* items: the row's text, the intent catalogue to choose from (each intent with
its description) and where the row lives (dataset, version, row), frozen when it is queued. Rows are
assigned like ratings (`assignment.assign`: each to ``overlap`` annotators, balanced). An answer is a set of
intents from the item's catalogue, or the empty set for "none of these" (the ticket asks for nothing the
catalogue knows: out of scope).

**When a label reaches the row.** Once every annotator assigned to the row has answered, the row's label is
the intents chosen by a strict majority of the answers (more than half). When no intent has a majority, the
row is out of scope if a strict majority answered "none of these"; otherwise the annotators disagree, the
row stays unlabelled and is listed among the queue's disagreements (raise the overlap, or relabel). With an
overlap of 1 the one answer lands as it is; with 2, both must choose an intent; with 3, two of three.

The label lands through `mase_web.datasets.facade` in a new version of the row's dataset holding the row
with its intents, provenance ``annotated``, the annotator whose answer completed it as its author, every
annotator's name in its metadata (``annotated_by``), and the queue item as its source — one version for a
labelling session's labels, not one per row (`label_publishing`, decision 0032): the label waits as pending
until its session ends. An answer changed after the label was agreed changes nothing that lands.

**Agreement** is Krippendorff's alpha (`training.agreement`) with the nominal metric over whole answers
(two answers agree when they name the same set of intents), and per intent over chosen / not chosen; the
disagreements are the rows whose answers differ, widest first.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import transaction

from mase_web.datasets.facade import DatasetRow, DatasetVersion, version_rows
from mase_web.feedback.label_publishing import pending
from mase_web.feedback.models import Assignment, FeedbackItem, FeedbackQueue, IntentLabel, RowLabel
from training.agreement import alpha_by_unit_set

NONE_OF_THESE = "(none of these)"


def row_key(version: DatasetVersion, row: DatasetRow) -> str:
    """An item's key: the dataset and the row's content hash (the same row in a later version is the same)."""
    return f"dataset/{version.dataset_id}/row/{row.row_hash}"


def row_snapshot(version: DatasetVersion, row: DatasetRow, catalogue: list[dict[str, str]]) -> dict[str, Any]:
    """What an annotator labels: the row's text, the catalogue (name, description) and where it lives."""
    return {
        "task": row.text,
        "answer": "",
        "steps": [],
        "catalogue": [{"name": i["name"], "description": i.get("description", "")} for i in catalogue],
        "meta": {
            "dataset": version.dataset_id,
            "dataset_name": version.dataset.name,
            "version": version.pk,
            "version_number": version.number,
            "row": row.pk,
            "row_hash": row.row_hash,  # the row a relabelling version would replace
            "index": row.index,
            "owner": row.owner,
            "reference_reply": row.reference_reply,
            "metadata": row.metadata,
        },
    }


def unlabelled_items(
    queue: FeedbackQueue, version: DatasetVersion, catalogue: list[dict[str, str]], limit: int
) -> list[FeedbackItem]:
    """Items for up to ``limit`` of the version's unlabelled rows not in the queue yet, in row order."""
    held = set(queue.items.values_list("episode_key", flat=True))
    items = []
    for row in version_rows(version).filter(intent_key="").iterator(chunk_size=500):
        key = row_key(version, row)
        if key in held or (row.metadata or {}).get("out_of_scope"):
            continue
        held.add(key)
        items.append(
            FeedbackItem(
                kind=FeedbackItem.Kind.ROW, episode_key=key, snapshot=row_snapshot(version, row, catalogue)
            )
        )
        if len(items) >= limit:
            break
    return items


def catalogue_names(item: FeedbackItem) -> list[str]:
    return [i["name"] for i in item.snapshot.get("catalogue") or []]


def majority_label(answers: list[list[str]]) -> list[str] | None:
    """The label the answers agree on (the module docstring's rule): intents chosen by more than half;
    [] when more than half said "none of these"; None when they disagree (or there are no answers)."""
    if not answers:
        return None
    votes = Counter(name for answer in answers for name in set(answer))
    label = sorted(name for name, count in votes.items() if count * 2 > len(answers))
    if label:
        return label
    nones = sum(1 for answer in answers if not answer)
    return [] if nones * 2 > len(answers) else None


def _answer_value(intents: list[str]) -> str:
    """An answer as one nominal value: its sorted intents joined, or NONE_OF_THESE."""
    return "|".join(sorted(intents)) or NONE_OF_THESE


@transaction.atomic
def resolve(item: FeedbackItem) -> RowLabel | None:
    """Lands the row's label when every assigned annotator has answered and they agree; returns the stored
    `RowLabel` (also when it had landed before), None while answers are missing or disagree."""
    FeedbackItem.objects.select_for_update().filter(pk=item.pk).first()  # one resolver per item
    done = RowLabel.objects.filter(item=item).first()
    if done is not None:
        return done
    assigned = set(Assignment.objects.filter(item=item).values_list("annotator_id", flat=True))
    labels = list(
        IntentLabel.objects.filter(item=item).select_related("annotator").order_by("updated_at", "id")
    )
    if not assigned or not assigned <= {label.annotator_id for label in labels}:
        return None
    answers = [label for label in labels if label.annotator_id in assigned]
    intents = majority_label([a.intents for a in answers])
    if intents is None:
        return None
    names = [a.annotator.username for a in answers]
    landed = pending(item, by=answers[-1].annotator)  # published with its session's labels
    return RowLabel.objects.create(item=item, intents=intents, annotators=names, landed=landed)


def intent_agreement(queue: FeedbackQueue) -> dict[str, Any]:
    """Alpha over whole answers (nominal) and per intent (chosen or not), with how many rows landed."""
    units: dict[int, list[list[str]]] = {}
    rows = IntentLabel.objects.filter(item__queue=queue).order_by("item_id", "annotator_id")
    for item_id, intents in rows.values_list("item_id", "intents"):
        units.setdefault(item_id, []).append(list(intents))
    whole = alpha_by_unit_set(
        {i: [_answer_value(a) for a in answers] for i, answers in units.items()}, "nominal"
    )
    names = sorted({name for answers in units.values() for answer in answers for name in answer})
    per_intent = {
        name: alpha_by_unit_set(
            {i: [name in answer for answer in answers] for i, answers in units.items()}, "nominal"
        )["alpha"]
        for name in names
    }
    landed = RowLabel.objects.filter(item__queue=queue).count()
    return {"metric": "nominal", **whole, "per_intent": per_intent, "labelled_rows": landed}


def intent_disagreements(queue: FeedbackQueue) -> list[dict[str, Any]]:
    """Rows whose answers name different sets of intents; the spread is the share of answers that differ
    from the most common one; ``resolved`` says whether the majority rule still gave a label."""
    units: dict[int, list[list[str]]] = {}
    for item_id, intents in IntentLabel.objects.filter(item__queue=queue).values_list("item_id", "intents"):
        units.setdefault(item_id, []).append(list(intents))
    out = []
    for item_id, answers in units.items():
        values = [_answer_value(a) for a in answers]
        width = 1 - Counter(values).most_common(1)[0][1] / len(values)
        if len(values) >= 2 and width > 0:
            out.append(
                {
                    "item": item_id,
                    "values": values,
                    "spread": width,
                    "resolved": majority_label(answers) is not None,
                }
            )
    out.sort(key=lambda row: (-row["spread"], row["item"]))
    return out
