"""A version's rows as the routing environment reads them: ``{"id", "text", "intents"}`` dicts, JSONL text,
or a file in the server's data directory that a spec names (never a path: `agents.places`).

A file is named ``dataset-<version id>-<content hash prefix>`` (`data_file_name`) and written once under
``places.data_dir`` of the environment's folder (for customer_service MASE_TICKETS_DIR, else
MASE_DATASETS_DIR/<folder>/), so ``agents.spec.paths`` accepts the name and resolves it there. A version
is immutable, so its file never has to be rewritten.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents import places
from mase_web.datasets.models import DatasetVersion
from mase_web.datasets.service import version_rows

SPLITS = ("train", "dev", "test")


def export_rows(
    version: DatasetVersion, split: str | None = None, *, full: bool = False, labelled_only: bool = False
) -> list[dict[str, Any]]:
    """The rows of ``version`` (one split, or all) as ``{"id", "text", "intents"}`` dicts in order.

    The id is the row's own (metadata ``id``) when no earlier row has it, else ``<version id>-<index>``, so
    ids are unique as ticket readers require. ``labelled_only`` leaves out rows without intents; ``full``
    adds owner, reference_reply, metadata, split and provenance."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; one of {', '.join(SPLITS)}")
    rows = version_rows(version, split)
    if labelled_only:
        rows = rows.exclude(intent_key="")
    out, seen = [], set()
    for row in rows.iterator(chunk_size=5000):
        own_id = row.metadata.get("id") if isinstance(row.metadata, dict) else None
        row_id = str(own_id) if isinstance(own_id, str | int) and not isinstance(own_id, bool) else ""
        if not row_id or row_id in seen:
            row_id = f"{version.pk}-{row.index}"
        seen.add(row_id)
        item: dict[str, Any] = {"id": row_id, "text": row.text, "intents": list(row.intents)}
        if full:
            item.update(
                owner=row.owner,
                reference_reply=row.reference_reply,
                metadata=row.metadata,
                split=row.split,
                provenance=row.provenance,
            )
        out.append(item)
    return out


def export_jsonl(version: DatasetVersion, split: str | None = None, *, labelled_only: bool = False) -> str:
    """`export_rows` as JSONL text (one object a line, a final newline)."""
    rows = export_rows(version, split, labelled_only=labelled_only)
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


def export_upload_jsonl(version: DatasetVersion, split: str | None = None) -> str:
    """The version's rows (one split, or all) as JSONL the upload reads back unchanged (the download): each
    row's ``text``, ``intents``, ``owner``, ``reference_reply`` and ``metadata``, and its own ``id`` (metadata
    ``id``) in front when it has one, as ticket readers name rows by it. A made-up id is left out: the upload
    would keep it as metadata."""
    lines = []
    for row in export_rows(version, split, full=True):
        metadata = row["metadata"] if isinstance(row["metadata"], dict) else {}
        own = "id" in metadata and str(metadata["id"]) == row["id"]
        item = {"id": row["id"]} if own else {}
        item.update({key: row[key] for key in ("text", "intents", "owner", "reference_reply", "metadata")})
        lines.append(json.dumps(item, ensure_ascii=False) + "\n")
    return "".join(lines)


def data_file_name(version: DatasetVersion, labelled_only: bool = False) -> str:
    """``dataset-<version id>-<first 10 hex of its content hash>`` (``-labelled`` for labelled rows only):
    the hash makes a version's name unguessable without its rows."""
    return f"dataset-{version.pk}-{version.content_hash[:10]}" + ("-labelled" if labelled_only else "")


def write_data_file(
    version: DatasetVersion,
    split: str | None = None,
    folder: str = places.TICKETS_FOLDER,
    *,
    labelled_only: bool = False,
) -> str:
    """Write one split (or every row) of ``version`` as JSONL where a spec's data parameter of environment
    folder ``folder`` finds it, and return the *name* a spec gives: ``<data_file_name>.<split or all>``.
    Raises RuntimeError when the server has no directory for that folder."""
    name = f"{data_file_name(version, labelled_only)}.{split or 'all'}"
    _write_once(
        _directory(folder) / f"{name}.jsonl",
        lambda: export_jsonl(version, split, labelled_only=labelled_only),
    )
    return name


def write_training_files(
    version: DatasetVersion,
    folder: str = places.TICKETS_FOLDER,
    *,
    labelled_only: bool = False,
    skip_empty: bool = False,
) -> str:
    """Write ``version`` as a ticket reader's dataset: ``NAME.jsonl`` (train), ``NAME.validation.jsonl``
    (dev) and ``NAME.test.jsonl`` (test), and return NAME (what ``environment.params.tickets`` gives).
    ``skip_empty``: a split without rows gets no file (a reader refuses an empty one; a small dataset's
    dev split may hold nothing, and the environment then selects without one)."""
    directory, name = _directory(folder), data_file_name(version, labelled_only)
    for split, suffix in (("train", ""), ("dev", ".validation"), ("test", ".test")):
        rows = version_rows(version, split)
        if skip_empty and not (rows.exclude(intent_key="") if labelled_only else rows).exists():
            continue
        _write_once(
            directory / f"{name}{suffix}.jsonl",
            lambda split=split: export_jsonl(version, split, labelled_only=labelled_only),
        )
    return name


def _directory(folder: str) -> Path:
    directory = places.data_dir(places.DataFiles(folder, "dataset file"))
    if directory is None:
        raise RuntimeError(f"no data directory is configured for {folder!r} (MASE_DATASETS_DIR)")
    return Path(directory)


def _write_once(target: Path, content: Callable[[], str]) -> None:
    """Write ``target`` whole (a temporary file renamed) unless it exists: a version never changes."""
    if target.is_file():
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".part")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(content())
    os.replace(temporary, target)  # whole or absent: a reader never sees half a file
