"""The facade other apps use: add_rows makes a new immutable version that keeps the parent's rows and
splits; deployment_dataset is one dataset per deployment; export_rows / write_data_file give the rows the
routing environment reads."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model

from agents import places
from agents.spec.paths import path_problems
from mase_web.accounts.models import Project
from mase_web.datasets import facade
from mase_web.datasets.models import Dataset, ImmutableError
from mase_web.datasets.rows import NewRow
from mase_web.datasets.versions import create_version
from mase_web.deployments.models import Deployment
from mase_web.runs.models import Run

pytestmark = pytest.mark.django_db


def tickets(count: int, intent: str = "refund") -> list[dict]:
    return [{"text": f"ticket number {i} about {intent}", "intents": [intent]} for i in range(count)]


@pytest.fixture
def dataset():
    project = Project.objects.create(name="shop")
    return Dataset.objects.create(project=project, name="tickets")


def test_add_rows_makes_a_child_version_keeping_the_parents_splits(dataset):
    first = facade.add_rows(dataset, tickets(30) + tickets(30, "delivery"), "uploaded", seed=7)
    assert (first.number, first.row_count, first.parent) == (1, 60, None)
    assert facade.split_counts(first) == {"train": 48, "dev": 6, "test": 6}
    before = {row.text: row.split for row in facade.version_rows(first)}

    second = facade.add_rows(
        dataset,
        [{"text": "where is my parcel", "intents": ["delivery"]}],
        "corrected",
        source_ref="decision 12",
    )
    assert (second.number, second.row_count, second.parent_id, second.split_seed) == (2, 61, first.pk, 7)
    after = {row.text: row.split for row in facade.version_rows(second)}
    assert {text: after[text] for text in before} == before  # the parent's splits never move
    added = facade.version_rows(second).get(text="where is my parcel")
    assert (added.provenance, added.source_ref) == ("corrected", "decision 12")
    assert facade.latest_version(dataset) == second
    assert first.content_hash != second.content_hash
    with pytest.raises(ImmutableError):
        first.save()


def test_add_rows_refuses_bad_rows_whole(dataset):
    dataset.catalogue = {"intents": [{"name": "refund", "description": "money back"}]}
    dataset.save()
    with pytest.raises(facade.RowsRefused) as refused:
        facade.add_rows(
            dataset,
            [{"text": "ok", "intents": ["refund"]}, {"text": "", "intents": ["warranty"]}],
            "annotated",
        )
    fields = {(e["index"], e["field"]) for e in refused.value.errors}
    assert fields == {(1, "text"), (1, "intents[0]")}
    assert not dataset.versions.exists()


def test_deployment_dataset_is_made_once_and_only_in_its_project(dataset):
    project = dataset.project
    run = Run.objects.create(project=project, name="trained", spec={}, state=Run.State.SUCCEEDED)
    deployment = Deployment.objects.create(project=project, name="cs", run=run, checkpoint="x", spec={})
    Dataset.objects.create(project=project, name=f"cs corrections (deployment {deployment.pk})")  # taken

    made = facade.deployment_dataset(deployment.pk, project)
    assert made.deployment_id == deployment.pk and made.name.endswith(" 2")
    assert facade.deployment_dataset(deployment.pk, project.pk) == made
    with pytest.raises(LookupError):
        facade.deployment_dataset(deployment.pk, Project.objects.create(name="other"))
    with pytest.raises(LookupError):
        facade.deployment_dataset(987654, project)


def test_export_rows_and_the_files_a_spec_names(dataset, tmp_path, monkeypatch):
    given = [
        {"text": "a", "intents": ["x"], "metadata": {"id": "t-1"}},
        {"text": "b", "id": "t-1"},
        {"text": "c"},
    ]
    version = facade.add_rows(dataset, given, "uploaded")
    rows = facade.export_rows(version)
    assert [row["id"] for row in rows] == ["t-1", f"{version.pk}-1", f"{version.pk}-2"]  # ids stay unique
    assert rows[0] == {"id": "t-1", "text": "a", "intents": ["x"]}
    assert [row["text"] for row in facade.export_rows(version, labelled_only=True)] == ["a"]

    monkeypatch.setattr(
        places, "_places", places.Places(None, tmp_path / "tickets", None, tmp_path / "datasets")
    )
    name = facade.write_training_files(version, folder="customer_service")
    assert name == f"dataset-{version.pk}-{version.content_hash[:10]}"
    written = sorted(p.name for p in (tmp_path / "tickets").iterdir())
    assert written == sorted(f"{name}{suffix}.jsonl" for suffix in ("", ".validation", ".test"))
    train = (tmp_path / "tickets" / f"{name}.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in train] == facade.export_rows(version, "train")
    # A spec names the file by name, and the server's path check accepts it (a path would be refused).
    assert path_problems({"environment": {"name": "customer_service", "params": {"tickets": name}}}) == []
    one = facade.write_data_file(version, "test", folder="customer_service")
    assert (tmp_path / "tickets" / f"{one}.jsonl").is_file()
    assert path_problems({"environment": {"name": "customer_service", "params": {"tickets": one}}}) == []


def test_relabel_rows_labels_in_place_keeping_the_split(dataset):
    unlabelled = [{"text": f"question {i}"} for i in range(20)]
    first = facade.add_rows(dataset, unlabelled, "uploaded", seed=3)
    target = facade.version_rows(first).get(text="question 7")
    annotator = get_user_model().objects.create_user("ann")

    second = facade.relabel_rows(
        dataset,
        [{"row": target.pk, "intents": ["refund"]}],
        "annotated",
        annotator,
        source_ref="queue 1/item 4",
    )
    assert second.row_count == 20  # replaced where it stood, not held twice
    labelled = facade.version_rows(second).get(text="question 7")
    assert (labelled.index, labelled.split, labelled.intents) == (target.index, target.split, ["refund"])
    assert (labelled.provenance, labelled.by, labelled.source_ref) == (
        "annotated",
        annotator,
        "queue 1/item 4",
    )
    others = {r.text: r.split for r in facade.version_rows(second) if r.text != "question 7"}
    assert others == {r.text: r.split for r in facade.version_rows(first) if r.text != "question 7"}

    # A row a later upload dropped is appended, still in its own split.
    dropped = facade.version_rows(second).get(text="question 3")
    facade.add_rows(dataset, [{"text": "new one"}], "uploaded")
    create_version(dataset, [NewRow(text="only this")], keep_parent_rows=False)
    third = facade.relabel_rows(dataset, [{"row": dropped.pk, "intents": []}], "annotated")
    assert [(r.text, r.split) for r in facade.version_rows(third)][-1] == ("question 3", dropped.split)

    with pytest.raises(facade.RowsRefused) as refused:
        facade.relabel_rows(
            dataset, [{"row": 10**9, "intents": ["x"]}, {"row": target.pk, "intents": "x"}], "annotated"
        )
    assert [(e["index"], e["field"]) for e in refused.value.errors] == [(0, "row"), (1, "intents")]
    other = Dataset.objects.create(project=dataset.project, name="other")
    with pytest.raises(facade.RowsRefused):  # a row of another dataset is no row of this one
        facade.relabel_rows(other, [{"row": target.pk, "intents": ["x"]}], "annotated")
