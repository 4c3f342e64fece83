"""The API's request parsers: a size limit, and no hostile input becomes a 500 or a stored value that breaks
later reads.

DRF reads the request stream directly, which bypasses Django's DATA_UPLOAD_MAX_MEMORY_SIZE check, and the
stdlib decoder raises RecursionError (not ValueError) on very deep nesting. Beyond syntax, a document is
refused when it holds something no database column can take back out intact:

- lone surrogates (the JSON escape "\\ud800" alone): not encodable as UTF-8, so every later read of the row
  fails while rendering it;
- NUL characters: PostgreSQL cannot store them in text or jsonb; refused on every database for one behaviour;
- non-finite numbers (``1e999`` overflows to infinity) and integers outside the signed 64-bit range: no
  column type holds them, and SQLite raises OverflowError on such an integer in a query.

Every problem is named by its field path (``items[0].snapshot.meta.x``), or ``body`` when it has none.

Every operation of the API takes a JSON object as its body (``test_every_request_body_is_an_object`` holds
the schema to that), so the parser refuses any other document: views may then read ``request.data`` as a
mapping, as form bodies already are.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser

from agents.spec import json_type_name

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_DEPTH = 200  # far above any real document; keeps later recursive code (serializers, encoders) safe
MAX_PROBLEMS = 20  # a document wrong everywhere gets the first ones, not a megabyte of messages

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# Source text without these (escaped or raw) cannot decode to a string holding a NUL or a surrogate.
_SUSPECT = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})|[\x00\ud800-\udfff]")


class UnstorableInput(ValueError):
    """A document that must not be stored; ``problems`` maps field paths to messages."""

    def __init__(self, problems: dict[str, list[str]]):
        super().__init__("; ".join(f"{path}: {' '.join(msgs)}" for path, msgs in problems.items()))
        self.problems = problems


class MalformedJSON(UnstorableInput):
    """Text that is not JSON at all (or nested too deeply to read); ``reason`` says why."""

    def __init__(self, where: str, reason: str):
        super().__init__({where: [f"malformed JSON: {reason}"]})
        self.reason = reason


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def escape(text: str) -> str:
    """``text`` with NULs and surrogates written as \\uXXXX escapes, safe to echo in an error."""
    return _UNSTORABLE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def text_problem(text: str) -> str | None:
    """What makes ``text`` unstorable, or None."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    if found.group() == "\x00":
        return "holds a NUL character (\\u0000), which cannot be stored"
    return f"holds an unpaired surrogate (\\u{ord(found.group()):04x}), which is not valid Unicode text"


def _scalar_problem(value: Any, strings: bool) -> str | None:
    kind = type(value)
    if kind is str:
        return text_problem(value) if strings else None
    if kind is float and math.isinf(value):  # 1e999 parses to infinity
        return "is not a finite number (too large for a 64-bit float)"
    if kind is int and not INT64_MIN <= value <= INT64_MAX:
        return "is outside the 64-bit integer range"
    return None


def _path(entry: tuple | None, segment: str | int | None, root: str) -> str:
    """The field path of ``segment`` under a walk entry; built only for the rare node with a problem."""
    segments = [] if segment is None else [segment]
    while entry is not None and entry[1] is not None:
        segments.append(entry[2])
        entry = entry[1]
    path = root
    for seg in reversed(segments):
        if isinstance(seg, int):
            path = f"{path or 'body'}[{seg}]"
        else:
            path = f"{path}.{escape(seg)}" if path else escape(seg)
    return path or "body"


def problems_in(value: Any, root: str = "", strings: bool = True) -> dict[str, list[str]]:
    """Field path -> messages for every unstorable part of a parsed JSON document (the first MAX_PROBLEMS).

    ``strings=False`` skips the text checks (the caller knows the source text holds no NUL or surrogate).
    Iterative, so a document nested as deep as the decoder allows cannot exhaust the stack here.
    """
    problems: dict[str, list[str]] = {}

    def report(entry, segment, message: str) -> bool:
        """Record a problem; True once there are enough."""
        problems.setdefault(_path(entry, segment, root), []).append(message)
        return len(problems) >= MAX_PROBLEMS

    if type(value) not in (dict, list):
        problem = _scalar_problem(value, strings)
        if problem:
            report(None, None, problem)
        return problems
    # An entry is (container, parent entry, key or index in the parent, depth).
    stack: list[tuple] = [(value, None, None, 1)]
    while stack and len(problems) < MAX_PROBLEMS:
        entry = stack.pop()
        node, depth = entry[0], entry[3]
        if depth > MAX_DEPTH:
            report(entry, None, f"JSON is nested deeper than {MAX_DEPTH} levels")
            continue
        is_dict = type(node) is dict
        pushed = len(stack)
        for key, child in node.items() if is_dict else enumerate(node):
            if is_dict and strings and _UNSTORABLE.search(key):
                if report(entry, key, f"the key {text_problem(key)}"):
                    break
            if type(child) in (dict, list):
                stack.append((child, entry, key, depth + 1))
            else:
                problem = _scalar_problem(child, strings)
                if problem and report(entry, key, problem):
                    break
        stack[pushed:] = reversed(stack[pushed:])  # nested problems come in document order
    return problems


def load_json(text: str, root: str = "") -> Any:
    """Parse one JSON document; raises UnstorableInput (paths under ``root``) when malformed or unstorable."""
    where = root or "body"
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise UnstorableInput({where: ["JSON is nested far too deeply"]}) from None
    except json.JSONDecodeError as exc:  # said as a person counts: no Python character offset
        at = f"column {exc.colno}" if exc.lineno == 1 else f"line {exc.lineno}, column {exc.colno}"
        raise MalformedJSON(where, f"{exc.msg.lower()} at {at}") from None
    except ValueError as exc:
        raise MalformedJSON(where, str(exc)) from None
    problems = problems_in(value, root, strings=_SUSPECT.search(text) is not None)
    if problems:
        raise UnstorableInput(problems)
    return value


class LimitedJSONParser(JSONParser):
    """JSON objects up to DATA_UPLOAD_MAX_MEMORY_SIZE bytes, refused with field paths when hostile."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ValidationError(
                {"body": [f"request body is larger than {limit:,} bytes; send a smaller document"]}
            )
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            value = load_json(raw.decode(encoding))
        except UnicodeDecodeError:
            raise ValidationError({"body": [f"request body is not valid {encoding} text"]}) from None
        except UnstorableInput as exc:
            raise ValidationError(exc.problems) from None
        if type(value) is not dict:
            raise ValidationError({"body": [f"must be a JSON object, got {json_type_name(value)}"]})
        return value


def _check_form(data) -> None:
    # Django decodes form text with errors="replace", so only NULs can arrive here, in names or values.
    problems: dict[str, list[str]] = {}
    for key, values in data.lists():
        problem = text_problem(key) or next(
            (p for v in values if isinstance(v, str) and (p := text_problem(v))), None
        )
        if problem:
            problems[escape(key)] = [problem]
    if problems:
        raise ValidationError(problems)


class CheckedFormParser(FormParser):
    """URL-encoded forms whose fields hold no unstorable text."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        _check_form(data)
        return data


class CheckedMultiPartParser(MultiPartParser):
    """Multipart forms whose text fields hold no unstorable text (uploaded files are checked by their users)."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        _check_form(parsed.data)
        return parsed
