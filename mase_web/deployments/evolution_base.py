"""Where a challenger's base tickets come from when its deployment's team was trained on a product dataset.

A team trained from a dataset version reads ``dataset-<version id>-<hash>[-labelled]`` (the name
`mase_web.datasets.export.write_training_files` gives). That version is pinned, but the dataset grows: an
annotator labels its unlabelled rows, a product manager appends rows, each a new version. A challenger of
such a deployment therefore starts from the dataset's *latest* version, written the way the product wrote
the original (same ``labelled_only``): its training split is the base, its dev split the dev split. The test
split is never read here. Any other tickets name (the shipped split, a file of one's own, an evolve file
``evolve-d<id>-g<n>``) is no dataset version: the caller keeps the parent's tickets as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from mase_web.datasets.facade import (
    DatasetVersion,
    latest_version,
    version_in_project,
    version_rows,
    write_training_files,
)
from mase_web.deployments.models import Deployment, Generation

_DATASET_NAME = re.compile(r"dataset-(\d+)-([0-9a-f]{10})(-labelled)?")


@dataclass(frozen=True)
class DatasetBase:
    """The latest version of the deployment's root dataset, written as training files named ``tickets``."""

    tickets: str  # the name the written files answer to (``NAME``, ``NAME.validation``)
    about: dict[str, Any]  # the generation's data summary's ``base_dataset``


class BaseRefused(Exception):
    """The root dataset cannot be read for this deployment (the message says why)."""


def parse_dataset_name(name: str) -> tuple[int, str, bool] | None:
    """(version id, content hash prefix, labelled_only) of a dataset version's training-files name."""
    found = _DATASET_NAME.fullmatch(name or "")
    if found is None:
        return None
    return int(found.group(1)), found.group(2), found.group(3) is not None


def root_version(deployment: Deployment, root: Generation) -> tuple[DatasetVersion, bool] | None:
    """The dataset version the deployment's first generation trained on, and its ``labelled_only``; None
    when its tickets are no dataset version of the deployment's project (or the version is gone). Raises
    BaseRefused for a version of another project: an id is never followed across projects."""
    params = ((root.spec or {}).get("environment") or {}).get("params") or {}
    parsed = parse_dataset_name(str(params.get("tickets") or ""))
    if parsed is None:
        return None
    version_id, digest, labelled_only = parsed
    version = version_in_project(version_id, deployment.project_id)
    if version is None:
        if DatasetVersion.objects.filter(pk=version_id).exists():
            raise BaseRefused("the team's training dataset is not one of the deployment's project's datasets")
        return None
    if version.content_hash[:10] != digest or version.dataset.project_id != deployment.project_id:
        return None  # not the version the name was written for
    if version.dataset.deployment_id == deployment.pk:
        return None  # the deployment's own corrections: they reach training as its rows, slice held out
    return version, labelled_only


def _training_hashes(version: DatasetVersion, labelled_only: bool) -> set[str]:
    rows = version_rows(version, "train")
    if labelled_only:
        rows = rows.exclude(intent_key="")
    return set(rows.values_list("row_hash", flat=True))


def dataset_base(deployment: Deployment, root: Generation, parent: Generation) -> DatasetBase | None:
    """The latest version of the root dataset as training files, and what the data summary says of it
    (``was_version_number``: the version the parent started from; ``rows_added_since``: training rows the
    latest version holds that it did not, newly labelled ones included). None: not trained on a dataset."""
    found = root_version(deployment, root)
    if found is None:
        return None
    pinned, labelled_only = found
    latest = latest_version(pinned.dataset) or pinned
    was = pinned
    before = (parent.data or {}).get("base_dataset") or {}
    if before.get("dataset") == pinned.dataset_id and isinstance(before.get("version"), int):
        was = version_in_project(before["version"], deployment.project_id) or pinned
    try:
        name = write_training_files(latest, labelled_only=labelled_only, skip_empty=True)
    except RuntimeError as exc:  # the server has no data directory for training files
        raise BaseRefused(str(exc)) from None
    added = _training_hashes(latest, labelled_only) - _training_hashes(was, labelled_only)
    about = {
        "dataset": pinned.dataset_id,
        "dataset_name": pinned.dataset.name,
        "version": latest.pk,
        "version_number": latest.number,
        "was_version_number": was.number,
        "rows_added_since": len(added),
        "labelled_only": labelled_only,
    }
    return DatasetBase(tickets=name, about=about)
