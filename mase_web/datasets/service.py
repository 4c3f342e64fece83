"""The datasets app's operations other apps call (through the facade): add rows as a new version, find a
deployment's corrections dataset, read a version's rows and their summaries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Count, QuerySet

from mase_web.accounts.facade import Project
from mase_web.datasets.models import Dataset, DatasetRow, DatasetVersion, Provenance
from mase_web.datasets.validation import clean_row
from mase_web.datasets.versions import create_relabelled_version, create_version, held_rows
from mase_web.datasets.versions import latest_version as _latest
from mase_web.deployments.facade import deployment_in_project


class RowsRefused(ValueError):
    """Rows given to `add_rows` that cannot be stored; ``errors`` lists {index, field, message}."""

    def __init__(self, errors: list[dict[str, Any]]):
        super().__init__("; ".join(f"row {e['index']} {e['field']}: {e['message']}" for e in errors[:10]))
        self.errors = errors


def latest_version(dataset: Dataset) -> DatasetVersion | None:
    """The dataset's newest version (None before the first upload)."""
    return _latest(dataset)


def add_rows(
    dataset: Dataset,
    rows: Iterable[dict[str, Any]],
    provenance: str,
    by=None,
    source_ref: str | None = None,
    seed: int | None = None,
) -> DatasetVersion:
    """A new immutable version of ``dataset``: the latest version's rows, then ``rows``.

    Each row is ``{"text", "intents"?, "owner"?, "reference_reply"?, "metadata"?, "source_ref"?}`` (a row's
    own ``source_ref`` wins over the argument). ``provenance`` is one of `Provenance` ("corrected",
    "annotated", ...), ``by`` the user who gave the rows. Splits of the kept rows never change; a new row
    identical to a parent row takes its split, the others are drawn with the version's seed. Raises
    RowsRefused (nothing stored) when any row is invalid, ValueError for an unknown provenance.
    """
    if provenance not in Provenance.values:
        raise ValueError(f"unknown provenance {provenance!r}; one of {', '.join(Provenance.values)}")
    catalogue = dataset.intent_names()
    cleaned, errors = [], []
    for index, doc in enumerate(rows):
        doc = dict(doc)
        ref = str(doc.pop("source_ref", None) or source_ref or "")[:200]
        row, problems = clean_row(doc, catalogue) if isinstance(doc, dict) else (None, [])
        errors += [{"index": index, "field": field, "message": message} for field, message in problems]
        if row is not None:
            row.provenance, row.source_ref = provenance, ref
            row.by_id = by.pk if by is not None and getattr(by, "is_authenticated", False) else None
            cleaned.append(row)
    if errors:
        raise RowsRefused(errors)
    if not cleaned:
        raise RowsRefused([{"index": 0, "field": "rows", "message": "no rows given"}])
    return create_version(dataset, cleaned, keep_parent_rows=True, by=by, seed=seed, note=provenance)


def relabel_rows(
    dataset: Dataset,
    labels: Iterable[dict[str, Any]],
    provenance: str,
    by=None,
    source_ref: str | None = None,
) -> DatasetVersion:
    """A new immutable version of ``dataset`` in which rows get new labels in place, keeping their split.

    Each label is ``{"row": a DatasetRow id of any version of this dataset, "intents": [...], "owner"?,
    "reference_reply"?, "metadata"? (merged over the row's), "source_ref"?, "by"? (its author, else
    ``by``)}``; the row's text stays. The
    labelled row replaces the same row of the latest version (matched by content), so it is not held
    twice and the test slice does not move; a row the latest version no longer holds is appended with its
    old split. Raises RowsRefused (nothing stored) for an unknown row or an invalid label.
    """
    if provenance not in Provenance.values:
        raise ValueError(f"unknown provenance {provenance!r}; one of {', '.join(Provenance.values)}")
    labels = [dict(label) for label in labels]
    ids = [label.get("row") for label in labels]
    found = DatasetRow.objects.filter(pk__in=[i for i in ids if isinstance(i, int)], version__dataset=dataset)
    old_rows = {row.pk: row for row in found}
    catalogue, pairs, errors = dataset.intent_names(), [], []
    for index, label in enumerate(labels):
        old = old_rows.get(label.pop("row", None))
        if old is None:
            errors.append({"index": index, "field": "row", "message": "no such row in this dataset"})
            continue
        ref = str(label.pop("source_ref", None) or source_ref or "")[:200]
        author = label.pop("by", by)
        doc = {
            "text": old.text,
            "intents": label.get("intents", old.intents),
            "owner": label.get("owner", old.owner),
            "reference_reply": label.get("reference_reply", old.reference_reply),
            "metadata": {**old.metadata, **(label.get("metadata") or {})},
        }
        row, problems = clean_row(doc, catalogue)
        errors += [{"index": index, "field": field, "message": message} for field, message in problems]
        if row is not None:
            row.provenance, row.source_ref, row.by_id = provenance, ref, _user_id(author)
            pairs.append((old, row))
    if errors or not pairs:
        raise RowsRefused(errors or [{"index": 0, "field": "rows", "message": "no rows given"}])
    return create_relabelled_version(dataset, pairs, by=by, note=provenance)


def _user_id(user) -> int | None:
    return user.pk if user is not None and getattr(user, "is_authenticated", False) else None


def deployment_dataset(
    deployment_id: int, project: Project | int, by=None, catalogue: dict | None = None
) -> Dataset:
    """The dataset a deployment's corrections land in, made on first use. ``catalogue``: the deployment's
    intents now (``{"intents": [{"name", "description"}, ...]}``), kept as the dataset's, so that its rows are
    checked against them and a team trained on it brings their descriptions (None: left as it is). Raises
    LookupError when the deployment is not one of ``project``'s."""
    dataset = _corrections_dataset(deployment_id, project, by)
    if catalogue is not None and dataset.catalogue != catalogue:
        dataset.catalogue = catalogue
        dataset.save(update_fields=["catalogue"])
    return dataset


def _corrections_dataset(deployment_id: int, project: Project | int, by=None) -> Dataset:
    project_id = project.pk if isinstance(project, Project) else int(project)
    deployment = deployment_in_project(deployment_id, project_id)
    if deployment is None:
        raise LookupError(f"no deployment {deployment_id} in project {project_id}")
    base = f"{deployment.name} corrections (deployment {deployment.pk})"[:190]
    for attempt in range(5):
        found = Dataset.objects.filter(deployment_id=deployment.pk).first()
        if found is not None:
            return found
        try:
            with transaction.atomic():
                return Dataset.objects.create(
                    project_id=project_id,
                    name=base if attempt == 0 else f"{base} {attempt + 1}",  # a member took the name
                    description=f"Tickets of deployment {deployment.pk} corrected in review.",
                    deployment=deployment,
                    created_by=by if _user_id(by) is not None else None,
                )
        except IntegrityError:  # made at the same moment by another request, or the name is taken
            continue
    raise RuntimeError(f"could not make the corrections dataset of deployment {deployment.pk}")


def dataset_in_project(dataset_id: int, project_id: int) -> Dataset | None:
    """The project's dataset with that id; None when there is none (another project's answers the same)."""
    return Dataset.objects.filter(pk=dataset_id, project_id=project_id).first()


def version_in_project(version_id: int, project_id: int) -> DatasetVersion | None:
    """The version with that id of one of the project's datasets; None otherwise."""
    return (
        DatasetVersion.objects.filter(pk=version_id, dataset__project_id=project_id)
        .select_related("dataset")
        .first()
    )


def version_rows(version: DatasetVersion, split: str | None = None) -> QuerySet[DatasetRow]:
    """The version's rows in order, optionally only one split ("train", "dev", "test")."""
    rows = held_rows(version)
    return rows.filter(split=split) if split else rows


def split_counts(version: DatasetVersion) -> dict[str, int]:
    """{"train": n, "dev": n, "test": n} (every split named, 0 when empty)."""
    counts = dict(version_rows(version).values_list("split").annotate(n=Count("id")).order_by())
    return {name: counts.get(name, 0) for name in ("train", "dev", "test")}


def label_distribution(version: DatasetVersion) -> dict[str, Any]:
    """How many rows carry each intent, overall and per split, how many are unlabelled, and how many are
    out of scope (no intent, and marked so: ``metadata.out_of_scope``, by annotators or a reviewer)."""
    overall: Counter[str] = Counter()
    per_split: dict[str, Counter[str]] = {name: Counter() for name in ("train", "dev", "test")}
    unlabelled: Counter[str] = Counter()
    outside: Counter[str] = Counter()
    rows = version_rows(version).values_list("intents", "split", "metadata")
    for intents, split, metadata in rows.iterator(chunk_size=5000):
        if not intents:
            (outside if (metadata or {}).get("out_of_scope") else unlabelled)[split] += 1
        for name in intents:
            overall[name] += 1
            per_split[split][name] += 1
    names = sorted(overall, key=lambda name: (-overall[name], name))
    return {
        "intents": [
            {"name": name, "count": overall[name], **{s: per_split[s][name] for s in per_split}}
            for name in names
        ],
        "out_of_scope": {"count": sum(outside.values()), **{s: outside[s] for s in per_split}},
        "unlabelled": {"count": sum(unlabelled.values()), **{s: unlabelled[s] for s in per_split}},
    }
