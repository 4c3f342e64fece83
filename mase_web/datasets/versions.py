"""Making a new immutable version without copying its parent: a version holds the rows added up to it that
no later-or-equal version has retired, so landing one label writes one row (and retires the one it replaces),
not the whole dataset again. All in one transaction with bulk inserts.

A row belongs to the version that added it (``version``) and is held by every later version until one retires
it (``retired_in``, that version's number: a relabelled row, or every row when a file replaces the data). A
row's content and split are never edited; ``retired_in`` is set once, when the dataset moves on.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max, Q, QuerySet

from mase_web.datasets import splits
from mase_web.datasets.models import Dataset, DatasetRow, DatasetVersion
from mase_web.datasets.rows import NewRow, content_hash, from_stored

BATCH = 2000


def latest_version(dataset: Dataset) -> DatasetVersion | None:
    return dataset.versions.order_by("-number").first()


def held_rows(version: DatasetVersion) -> QuerySet[DatasetRow]:
    """The rows ``version`` holds, in order: added by it or an earlier version, not retired by it."""
    return DatasetRow.objects.filter(
        Q(retired_in__isnull=True) | Q(retired_in__gt=version.number),
        version__dataset_id=version.dataset_id,
        version__number__lte=version.number,
    ).order_by("index")


def stored_rows(version: DatasetVersion) -> list[NewRow]:
    return [from_stored(row) for row in held_rows(version).iterator(chunk_size=5000)]


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
    ``seed`` (default: the parent's seed, else 0). Only ``new_rows`` are written; without
    ``keep_parent_rows`` the parent's rows are retired by this version."""
    with transaction.atomic():
        parent = _lock_latest(dataset)
        parent_rows = stored_rows(parent) if parent is not None else []
        if seed is None:
            seed = parent.split_seed if parent is not None else 0
        for row in new_rows:
            row.split = None
        splits.inherit(new_rows, parent_rows)
        kept = parent_rows if keep_parent_rows else []
        splits.assign(kept + new_rows, seed)
        version = _new_version(dataset, parent, kept + new_rows, seed, by, note)
        if parent is not None and not keep_parent_rows:
            held_rows(parent).update(retired_in=version.number)
        start = parent.row_count if keep_parent_rows and parent is not None else 0
        _insert(version, [(start + k, row) for k, row in enumerate(new_rows)])
        return version


def create_relabelled_version(
    dataset: Dataset, relabelled: list[tuple[DatasetRow, NewRow]], *, by=None, note: str = ""
) -> DatasetVersion:
    """A new version of ``dataset``: its latest rows, each ``(old, new)`` pair's ``old`` row (matched by
    content, once each) replaced where it stands by ``new`` with the old row's split and line; an ``old``
    row the latest version no longer holds is appended, still with its own split. The test slice never
    moves and a labelled row is not held twice. Writes the new rows and retires the replaced ones only."""
    with transaction.atomic():
        parent = _lock_latest(dataset)
        held = list(held_rows(parent).iterator(chunk_size=5000)) if parent is not None else []
        rows = [from_stored(row) for row in held]
        free: dict[str, list[int]] = {}
        for position, row in enumerate(rows):
            free.setdefault(row.row_hash, []).append(position)
        retired, written = [], []
        for old, new in relabelled:
            places = free.get(old.row_hash)
            if places:
                position = places.pop(0)
                new.split, new.line = rows[position].split, rows[position].line
                rows[position] = new
                retired.append(held[position].pk)
                written.append((held[position].index, new))
            else:
                new.split, new.line = old.split, old.line
                written.append((len(rows), new))
                rows.append(new)
        seed = parent.split_seed if parent is not None else 0
        version = _new_version(dataset, parent, rows, seed, by, note)
        DatasetRow.objects.filter(pk__in=retired).update(retired_in=version.number)
        _insert(version, written)
        return version


def _lock_latest(dataset: Dataset) -> DatasetVersion | None:
    """Lock the dataset (two versions made at once must not take the same number); its latest version."""
    Dataset.objects.select_for_update().filter(pk=dataset.pk).first()
    return latest_version(dataset)


def _new_version(dataset: Dataset, parent, rows: list[NewRow], seed: int, by, note: str) -> DatasetVersion:
    number = (dataset.versions.aggregate(top=Max("number"))["top"] or 0) + 1
    return DatasetVersion.objects.create(
        dataset=dataset,
        number=number,
        parent=parent,
        content_hash=content_hash(rows),
        row_count=len(rows),
        split_seed=seed,
        note=note[:300],
        created_by=by if by is not None and by.is_authenticated else None,
    )


def _insert(version: DatasetVersion, rows: list[tuple[int, NewRow]]) -> None:
    DatasetRow.objects.bulk_create((_stored(version, index, row) for index, row in rows), BATCH)


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
