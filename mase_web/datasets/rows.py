"""A row as the datasets app holds it before it is stored: its normal form, its hash and a version's hash.

The normal form is what a version's content hash covers: the text as given, the intents sorted and without
repeats, the owner, the reference reply and the metadata (keys sorted). Split, provenance and author are not
content: the same rows uploaded twice hash the same.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

_PUNCTUATION_OR_SPACE = re.compile(r"[\W_]+", re.UNICODE)


@dataclass
class NewRow:
    """A row to store in a new version (validated already)."""

    text: str
    intents: list[str] = field(default_factory=list)
    owner: str = ""
    reference_reply: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    line: int | None = None
    provenance: str = "uploaded"
    source_ref: str = ""
    by_id: int | None = None
    split: str | None = None  # set when inherited from the parent version

    def __post_init__(self) -> None:
        self.intents = sorted(set(self.intents))

    @property
    def content(self) -> str:
        """The canonical JSON of the row's content (what hashes cover)."""
        doc = {
            "text": self.text,
            "intents": self.intents,
            "owner": self.owner,
            "reference_reply": self.reference_reply,
            "metadata": self.metadata,
        }
        return json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))

    @property
    def row_hash(self) -> str:
        return hashlib.sha256(self.content.encode()).hexdigest()

    @property
    def intent_key(self) -> str:
        return f"|{'|'.join(self.intents)}|" if self.intents else ""


def content_hash(rows: list[NewRow]) -> str:
    """sha256 over the rows' canonical JSON, one per line, in order."""
    digest = hashlib.sha256()
    for row in rows:
        digest.update(row.content.encode())
        digest.update(b"\n")
    return digest.hexdigest()


def near_key(text: str) -> str:
    """The text as near-duplicate detection compares it: case-folded, punctuation removed, whitespace
    collapsed (NFKC first, so full-width and compatibility forms compare equal)."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _PUNCTUATION_OR_SPACE.sub(" ", folded).strip()


def from_stored(row) -> NewRow:
    """A stored `DatasetRow` as a NewRow (its split kept): a parent's row carried into a child version."""
    return NewRow(
        text=row.text,
        intents=list(row.intents),
        owner=row.owner,
        reference_reply=row.reference_reply,
        metadata=dict(row.metadata),
        line=row.line,
        provenance=row.provenance,
        source_ref=row.source_ref,
        by_id=row.by_id,
        split=row.split,
    )
