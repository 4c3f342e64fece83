"""An uploaded file read into rows: JSONL or CSV, every bad row named by its line and field, every good row
kept, duplicates reported.

JSONL: one object a line, ``{"text", "intents"?, "owner"?, "reference_reply"?, "metadata"?, ...}`` (other
keys are metadata). CSV, separated by commas, semicolons or tabs (whichever the header holds most): a header
row with a ``text`` column; ``intents`` is a JSON list or names separated by ``;`` (quoted in a
semicolon-separated file); ``owner``, ``reference_reply``; every other column is metadata (empty cells left
out). Lines are
counted from 1 as an editor shows them (a CSV's header is line 1; a quoted cell may span lines, and its row
is named by its first line). Bytes that are not UTF-8 are refused for their row only: the file is decoded
with ``surrogateescape``, so a bad byte becomes a lone surrogate in that row's text and nowhere else.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

from mase_web.api_parsers import MalformedJSON, UnstorableInput, escape, load_json
from mase_web.datasets.rows import NewRow, near_key
from mase_web.datasets.validation import clean_row

MAX_LISTED = 500  # errors and duplicates listed in a response; the counts are always whole
_BAD_BYTE = re.compile("[\udc80-\udcff]")  # what surrogateescape makes of a byte that is not UTF-8
CSV_LABELS = {"text", "intents", "owner", "reference_reply"}


class FileRefused(ValueError):
    """The file as a whole cannot be read (too many rows, no text column, ...): a 400 naming ``field``."""

    def __init__(self, message: str, field: str = "file"):
        super().__init__(message)
        self.field = field


@dataclass
class ReadFile:
    rows: list[NewRow] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)  # {line, field, message}
    refused: int = 0  # rows with at least one error

    def refuse(self, line: int, problems: list[tuple[str, str]]) -> None:
        self.refused += 1
        self.errors += [{"line": line, "field": name, "message": message} for name, message in problems]


def read_upload(raw: bytes, file_format: str, catalogue: list[str] | None, max_rows: int) -> ReadFile:
    """The rows of an uploaded file (``file_format`` "jsonl" or "csv"), its per-row errors; raises
    FileRefused when the file as a whole cannot be used."""
    text = raw.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")
    reader = _read_jsonl if file_format == "jsonl" else _read_csv
    return reader(text, catalogue, max_rows)


def guess_format(filename: str, raw: bytes) -> str:
    """ "jsonl" or "csv", by the file's extension, else by its first non-blank character."""
    lower = filename.lower()
    if lower.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if lower.endswith((".csv", ".tsv")):
        return "csv"
    return "jsonl" if raw.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"{" else "csv"


def _too_many(max_rows: int) -> FileRefused:
    return FileRefused(f"the file has more than {max_rows:,} rows; split it or raise MASE_DATASET_MAX_ROWS")


def _read_jsonl(text: str, catalogue: list[str] | None, max_rows: int) -> ReadFile:
    out = ReadFile()
    seen = 0
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip("\r")
        if not line.strip():
            continue
        seen += 1
        if seen > max_rows:
            raise _too_many(max_rows)
        bad = _BAD_BYTE.search(line)
        if bad:
            byte = ord(bad.group()) - 0xDC00
            out.refuse(
                number, [("line", f"is not valid UTF-8 (byte 0x{byte:02x} at column {bad.start() + 1})")]
            )
            continue
        try:
            doc = load_json(line)
        except MalformedJSON as exc:
            out.refuse(number, [("line", f"is not valid JSON ({exc.reason})")])
            continue
        except UnstorableInput as exc:
            out.refuse(number, [(path, " ".join(messages)) for path, messages in exc.problems.items()])
            continue
        if not isinstance(doc, dict):
            out.refuse(number, [("line", 'must be a JSON object {"text", "intents"?, ...}')])
            continue
        _keep(out, number, doc, catalogue)
    return out


def _keep(out: ReadFile, number: int, doc: dict[str, Any], catalogue: list[str] | None) -> None:
    row, problems = clean_row(doc, catalogue)
    if row is None:
        out.refuse(number, problems)
        return
    row.line = number
    out.rows.append(row)


def _read_csv(text: str, catalogue: list[str] | None, max_rows: int) -> ReadFile:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=_delimiter(text.split("\n", 1)[0]))
    try:
        header = next(reader)
    except StopIteration:
        raise FileRefused("the file is empty") from None
    except csv.Error as exc:
        raise FileRefused(f"line 1: the header cannot be read as CSV ({exc})") from None
    columns = _columns(header)
    out, seen, start = ReadFile(), 0, reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:  # e.g. a quote never closed: the rest of the file is that one cell
            out.refuse(start, [("line", f"cannot be read as CSV ({exc})")])
            break
        number, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in cells):
            continue
        seen += 1
        if seen > max_rows:
            raise _too_many(max_rows)
        _keep_csv(out, number, columns, cells, catalogue)
    return out


def _delimiter(header_line: str) -> str:
    """The header's most frequent of ',', ';' and tab: spreadsheets in many locales save ';' or tabs."""
    return max((",", ";", "\t"), key=header_line.count) if header_line.strip() else ","


def _columns(header: list[str]) -> list[str]:
    columns = [name.strip() for name in header]
    if "text" not in columns:
        shown = ", ".join(escape(c) for c in columns[:20]) or "none"
        raise FileRefused(f"a CSV file needs a header row with a 'text' column (its columns: {shown})")
    repeated = sorted({c for c in columns if columns.count(c) > 1 and c})
    if repeated:
        raise FileRefused(
            f"the header names these columns more than once: {', '.join(map(escape, repeated))}"
        )
    bad = [c for c in columns if _BAD_BYTE.search(c) or "\x00" in c]
    if bad:
        raise FileRefused("the header holds text that is not valid UTF-8 or a NUL character")
    return columns


def _keep_csv(out: ReadFile, number: int, columns: list[str], cells: list[str], catalogue) -> None:
    if len(cells) != len(columns):
        out.refuse(number, [("line", f"has {len(cells)} cells; the header has {len(columns)} columns")])
        return
    bad = [
        (name, "is not valid UTF-8")
        for name, cell in zip(columns, cells, strict=True)
        if _BAD_BYTE.search(cell)
    ]
    if bad:
        out.refuse(number, bad)
        return
    doc: dict[str, Any] = {}
    metadata: dict[str, str] = {}
    for name, cell in zip(columns, cells, strict=True):
        if name in CSV_LABELS:
            if cell.strip():
                doc[name] = cell
        elif name and cell != "":
            metadata[name] = cell
    if "text" not in doc:
        doc["text"] = cells[columns.index("text")]
    if "intents" in doc:
        doc["intents"], problem = _csv_intents(doc["intents"])
        if problem:
            out.refuse(number, [("intents", problem)])
            return
    doc["metadata"] = metadata
    _keep(out, number, doc, catalogue)


def _csv_intents(cell: str) -> tuple[Any, str | None]:
    """A CSV ``intents`` cell: a JSON list, or names separated by ';'."""
    cell = cell.strip()
    if cell.startswith("["):
        try:
            return load_json(cell), None
        except UnstorableInput as exc:
            return (
                None,
                f"is not a JSON list of names ({' '.join(m for ms in exc.problems.values() for m in ms)})",
            )
    return [name.strip() for name in cell.split(";") if name.strip()], None


def duplicates(rows: list[NewRow]) -> dict[str, Any]:
    """Rows whose text repeats an earlier row's exactly, or after normalising (`rows.near_key`)."""
    exact_seen: dict[str, int | None] = {}
    near_seen: dict[str, int | None] = {}
    listed: list[dict[str, Any]] = []
    counts = {"exact": 0, "near": 0}
    for row in rows:
        key = near_key(row.text)
        if row.text in exact_seen:
            kind, first = "exact", exact_seen[row.text]
        elif key in near_seen:
            kind, first = "near", near_seen[key]
            exact_seen[row.text] = row.line
        else:
            exact_seen[row.text] = near_seen[key] = row.line
            continue
        counts[kind] += 1
        if len(listed) < MAX_LISTED:
            listed.append({"line": row.line, "duplicate_of": first, "kind": kind})
    return {**counts, "rows": listed}
