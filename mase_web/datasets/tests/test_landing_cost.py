"""Landing a label or a correction on a large dataset writes what changed, not the dataset again: a new
version stores its own rows and retires the ones it replaces, while every version still reads as it was made
(its rows, their splits, its content hash) — decision 0018's immutability and frozen splits."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from mase_web.accounts.models import Project
from mase_web.datasets import facade
from mase_web.datasets.models import Dataset, DatasetRow
from mase_web.datasets.rows import NewRow, content_hash
from mase_web.datasets.versions import create_version

pytestmark = pytest.mark.django_db

ROWS = 10_000


def writes(queries: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in queries.captured_queries if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))]  # fmt: skip


def snapshot(version) -> list[tuple[str, tuple[str, ...], str]]:
    return [(r.text, tuple(r.intents), r.split) for r in facade.version_rows(version)]


@pytest.fixture
def big():
    """A dataset of 10,000 rows (a third unlabelled) in one version."""
    dataset = Dataset.objects.create(project=Project.objects.create(name="shop"), name="big")
    intents = (["refund"], ["delivery"], [])
    rows = [NewRow(text=f"ticket {i} of the shop", intents=intents[i % 3]) for i in range(ROWS)]
    return dataset, create_version(dataset, rows, keep_parent_rows=False, seed=3)


def test_one_label_or_correction_writes_one_row_on_a_10000_row_dataset(big):
    dataset, first = big
    before = snapshot(first)
    stored = DatasetRow.objects.count()

    with CaptureQueriesContext(connection) as added:
        second = facade.add_rows(
            dataset, [{"text": "my parcel never came", "intents": ["delivery"]}], "corrected"
        )
    assert DatasetRow.objects.count() == stored + 1  # not 10,001 more
    assert len(writes(added)) <= 4, writes(added)  # the version, its row (and the dataset lock's savepoints)
    assert second.row_count == ROWS + 1 and snapshot(second)[:ROWS] == before

    unlabelled = facade.version_rows(second).filter(intent_key="").first()
    with CaptureQueriesContext(connection) as labelled:
        third = facade.relabel_rows(dataset, [{"row": unlabelled.pk, "intents": ["refund"]}], "annotated")
    assert DatasetRow.objects.count() == stored + 2
    assert len(writes(labelled)) <= 5, writes(labelled)  # the version, its row, the replaced row retired
    held = snapshot(third)
    assert len(held) == ROWS + 1 and held[unlabelled.index] == (
        unlabelled.text,
        ("refund",),
        unlabelled.split,
    )
    assert [row for k, row in enumerate(held) if k != unlabelled.index] == [
        row for k, row in enumerate(snapshot(second)) if k != unlabelled.index
    ]

    # every version still reads as it was made: its rows, splits and hash
    assert snapshot(first) == before and facade.version_rows(first).count() == ROWS
    assert facade.version_rows(second).filter(pk=unlabelled.pk).exists()
    assert not facade.version_rows(third).filter(pk=unlabelled.pk).exists()
    for version in (first, second, third):
        rows = [NewRow(text=r.text, intents=r.intents, owner=r.owner, reference_reply=r.reference_reply,
                       metadata=r.metadata) for r in facade.version_rows(version)]  # fmt: skip
        assert content_hash(rows) == version.content_hash


def test_a_replacing_upload_retires_the_old_rows_and_old_versions_still_read(big):
    dataset, first = big
    kept = [
        NewRow(text=f"ticket {i} of the shop", intents=(["refund"], ["delivery"], [])[i % 3])
        for i in range(10)
    ]
    second = create_version(
        dataset, kept + [NewRow(text="a new ticket", intents=["refund"])], keep_parent_rows=False
    )
    assert facade.version_rows(second).count() == 11
    old = {r.text: r.split for r in facade.version_rows(first)}
    assert all(old[r.text] == r.split for r in facade.version_rows(second)[:10])  # inherited splits
    assert facade.version_rows(first).count() == ROWS
    third = facade.add_rows(dataset, [{"text": "one more", "intents": ["delivery"]}], "corrected")
    assert [r.text for r in facade.version_rows(third)][-2:] == ["a new ticket", "one more"]
