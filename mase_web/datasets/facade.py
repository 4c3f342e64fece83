"""What other apps may use of datasets: a project's own data as rows in immutable versions.

Decision review lands corrected tickets here (`deployment_dataset`, `add_rows`), the annotation queue gives
rows their labels in place (`relabel_rows` with provenance ``annotated``: the row keeps its split), and training reads a version's rows
(`export_rows`, or `write_data_file` for a trainer that needs a file a spec names). Other apps import this
module only (an import-linter contract says so).
"""

from __future__ import annotations

from mase_web.datasets.export import export_jsonl, export_rows, write_data_file, write_training_files
from mase_web.datasets.models import Dataset, DatasetRow, DatasetVersion, Provenance, Split
from mase_web.datasets.service import (
    RowsRefused,
    add_rows,
    dataset_in_project,
    deployment_dataset,
    label_distribution,
    latest_version,
    relabel_rows,
    split_counts,
    version_in_project,
    version_rows,
)

__all__ = [
    "Dataset",
    "DatasetRow",
    "DatasetVersion",
    "Provenance",
    "RowsRefused",
    "Split",
    "add_rows",
    "dataset_in_project",
    "deployment_dataset",
    "export_jsonl",
    "export_rows",
    "label_distribution",
    "latest_version",
    "relabel_rows",
    "split_counts",
    "version_in_project",
    "version_rows",
    "write_data_file",
    "write_training_files",
]
