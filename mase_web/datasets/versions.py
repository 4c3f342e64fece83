"""Making a new immutable version: its rows (the parent's kept or not, then the new ones), their frozen
splits, the content hash, all written in one transaction with bulk inserts."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max

from mase_web.datasets import splits
from mase_web.datasets.models import Dataset, DatasetRow, DatasetVersion
from mase_web.datasets.rows import NewRow, content_hash, from_stored

BATCH = 2000


def latest_version(dataset: Dataset) -> DatasetVersion | None:
    return dataset.versions.order_by("-number").first()


def stored_rows(version: DatasetVersion) -> list[NewRow]:
    return [from_stored(row) for row in version.rows.order_by("index")]


def create_version(
    dataset: Dataset,
    new_rows: list[NewRow],
    *,
    keep_parent_rows: bool,
    by=None,
    seed: int | None = None,
    note: str = "",
) -> DatasetVersion:
    """A new version of ``dataset`` after its latest: the latest's rows (when ``keep_parent_rows``) then
    ``new_rows``. A new row identical to a parent row keeps that row's split; the others are drawn with
    ``seed`` (default: the parent's seed, else 0)."""
    with transaction.atomic():
        parent = _lock_latest(dataset)
        parent_rows = stored_rows(parent) if parent is not None else []
        if seed is None:
            seed = parent.split_seed if parent is not None else 0
        for row in new_rows:
            row.split = None
        splits.inherit(new_rows, parent_rows)
        rows = (parent_rows if keep_parent_rows else []) + new_rows
        splits.assign(rows, seed)
        return _write(dataset, parent, rows, seed, by, note)


def create_relabelled_version(
    dataset: Dataset, relabelled: list[tuple[DatasetRow, NewRow]], *, by=None, note: str = ""
) -> DatasetVersion:
    """A new version of ``dataset``: its latest rows, each ``(old, new)`` pair's ``old`` row (matched by
    content, once each) replaced where it stands by ``new`` with the old row's split and line; an ``old``
    row the latest version no longer holds is appended, still with its own split. The test slice never
    moves and a labelled row is not held twice."""
    with transaction.atomic():
        parent = _lock_latest(dataset)
        rows = stored_rows(parent) if parent is not None else []
        free: dict[str, list[int]] = {}
        for index, row in enumerate(rows):
            free.setdefault(row.row_hash, []).append(index)
        for old, new in relabelled:
            places = free.get(old.row_hash)
            if places:
                index = places.pop(0)
                new.split, new.line = rows[index].split, rows[index].line
                rows[index] = new
            else:
                new.split, new.line = old.split, old.line
                rows.append(new)
        seed = parent.split_seed if parent is not None else 0
        return _write(dataset, parent, rows, seed, by, note)


def _lock_latest(dataset: Dataset) -> DatasetVersion | None:
    """Lock the dataset (two versions made at once must not take the same number); its latest version."""
    Dataset.objects.select_for_update().filter(pk=dataset.pk).first()
    return latest_version(dataset)


def _write(dataset: Dataset, parent, rows: list[NewRow], seed: int, by, note: str) -> DatasetVersion:
    number = (dataset.versions.aggregate(top=Max("number"))["top"] or 0) + 1
    version = DatasetVersion.objects.create(
        dataset=dataset,
        number=number,
        parent=parent,
        content_hash=content_hash(rows),
        row_count=len(rows),
        split_seed=seed,
        note=note[:300],
        created_by=by if by is not None and by.is_authenticated else None,
    )
    DatasetRow.objects.bulk_create((_stored(version, index, row) for index, row in enumerate(rows)), BATCH)
    return version


def _stored(version: DatasetVersion, index: int, row: NewRow) -> DatasetRow:
    return DatasetRow(
        version=version,
        index=index,
        line=row.line,
        text=row.text,
        intents=row.intents,
        intent_key=row.intent_key,
        owner=row.owner,
        reference_reply=row.reference_reply,
        metadata=row.metadata,
        split=row.split,
        provenance=row.provenance,
        source_ref=row.source_ref,
        by_id=row.by_id,
        row_hash=row.row_hash,
    )
