"""The checks every row passes before it is stored, whoever sends it (an upload, a correction, an
annotator): each problem is named by its field, so an upload can say "line 12, intents: ...".

A row is ``{"text": str, "intents"?: [str], "owner"?: str, "reference_reply"?: str, "metadata"?: {...}}``;
any other key is metadata (so ``{"id": ..., "text": ..., "intents": [...]}`` rows load as they are).
"""

from __future__ import annotations

from typing import Any

from agents.spec import json_type_name
from mase_web.api_parsers import escape, problems_in
from mase_web.datasets.rows import NewRow

MAX_TEXT = 20_000
MAX_REPLY = 20_000
MAX_NAME = 100  # an intent's or an owner's name
MAX_INTENTS = 64
LABEL_FIELDS = ("text", "intents", "owner", "reference_reply", "metadata")

Problems = list[tuple[str, str]]  # (field, message)


def clean_row(doc: dict[str, Any], catalogue: list[str] | None) -> tuple[NewRow | None, Problems]:
    """The row ``doc`` describes, or None and every problem found (field, message). ``catalogue``: the
    intent names a row may carry (None: any)."""
    problems: Problems = [(path, " ".join(msgs)) for path, msgs in problems_in(doc).items()]
    if problems:  # NULs and surrogates, named where they are; nothing else is judged on such a row
        return None, problems
    text = _text(doc.get("text"), problems)
    intents = _intents(doc.get("intents"), catalogue, problems)
    owner = _short_string(doc.get("owner"), "owner", problems)
    reply = _string(doc.get("reference_reply"), "reference_reply", MAX_REPLY, problems)
    metadata = _metadata(doc, problems)
    if problems:
        return None, problems
    return NewRow(text=text, intents=intents, owner=owner, reference_reply=reply, metadata=metadata), []


def _text(value: Any, problems: Problems) -> str:
    if value is None:
        problems.append(("text", "is required"))
    elif not isinstance(value, str):
        problems.append(("text", f"must be a string, got {json_type_name(value)}"))
    elif not value.strip():
        problems.append(("text", "is empty"))
    elif len(value) > MAX_TEXT:
        problems.append(("text", f"is longer than {MAX_TEXT:,} characters"))
    else:
        return value
    return ""


def _intents(value: Any, catalogue: list[str] | None, problems: Problems) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(("intents", f"must be a list of intent names, got {json_type_name(value)}"))
        return []
    if len(value) > MAX_INTENTS:
        problems.append(("intents", f"holds more than {MAX_INTENTS} intents"))
        return []
    names = []
    for position, item in enumerate(value):
        problem = _intent_problem(item, catalogue)
        if problem:
            problems.append((f"intents[{position}]", problem))
        else:
            names.append(item.strip())
    return names


def _intent_problem(item: Any, catalogue: list[str] | None) -> str | None:
    if not isinstance(item, str):
        return f"must be an intent name (a string), got {json_type_name(item)}"
    name = item.strip()
    if not name:
        return "is empty"
    if len(name) > MAX_NAME:
        return f"is longer than {MAX_NAME} characters"
    if "|" in name or ";" in name:
        return "may not hold '|' or ';'"
    if catalogue is not None and name not in catalogue:
        known = ", ".join(catalogue) or "none"
        return f"unknown intent {escape(name)!r}; this dataset's intents are: {known}"
    return None


def _string(value: Any, field: str, limit: int, problems: Problems) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        problems.append((field, f"must be a string, got {json_type_name(value)}"))
        return ""
    if len(value) > limit:
        problems.append((field, f"is longer than {limit:,} characters"))
        return ""
    return value.strip()


def _short_string(value: Any, field: str, problems: Problems) -> str:
    return _string(value, field, MAX_NAME, problems)


def _metadata(doc: dict[str, Any], problems: Problems) -> dict[str, Any]:
    given = doc.get("metadata")
    if given is not None and not isinstance(given, dict):
        problems.append(("metadata", f"must be an object, got {json_type_name(given)}"))
        return {}
    extra = {key: value for key, value in doc.items() if key not in LABEL_FIELDS}
    return {**extra, **(given or {})}
