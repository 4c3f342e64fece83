"""Uploaded batch files: one ticket per line, ``{"id", "text", "intents"?}``; every bad line is reported."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agents.envs.routing import rows_intents
from mase_web.api_parsers import MalformedJSON, UnstorableInput, load_json, text_problem

MAX_TICKETS = 5000
MAX_TEXT = 4000
MAX_ERRORS = 50  # a file that is wrong everywhere gets the first ones, not a megabyte of messages


def catalogue_names(spec: Mapping[str, Any] | None) -> tuple[str, ...]:
    """The intents a deployed spec's team answers (its routing environment's catalogue; () for none)."""
    environment = (spec or {}).get("environment") or {}
    name, params = environment.get("name"), environment.get("params") or {}
    return rows_intents(params, name) if isinstance(name, str) and isinstance(params, dict) else ()


def _check(item: Any, names: Sequence[str]) -> tuple[dict | None, str | None]:
    """(ticket, None) or (None, what is wrong with this line)."""
    if not isinstance(item, dict):
        return None, 'expected an object {"id", "text", "intents"?}'
    unknown = sorted(set(item) - {"id", "text", "intents"})
    if unknown:
        return None, f"unknown field(s) {', '.join(unknown)}"
    ticket_id, text, intents = item.get("id"), item.get("text"), item.get("intents")
    if isinstance(ticket_id, bool) or not isinstance(ticket_id, str | int) or str(ticket_id).strip() == "":
        return None, '"id" must be a non-empty string or a number'
    if not isinstance(text, str) or not text.strip():
        return None, '"text" must be a non-empty string'
    if len(text) > MAX_TEXT:
        return None, f'"text" is longer than {MAX_TEXT} characters'
    if intents is not None:
        if not isinstance(intents, list) or not intents or not all(isinstance(i, str) for i in intents):
            return None, '"intents" must be a non-empty list of intent names'
        bad = [i for i in intents if i not in names]
        if bad:
            known = f"known: {', '.join(names)}" if names else "this team answers no intents"
            return None, f"unknown intent(s) {', '.join(bad)}; {known}"
        intents = [i for i in names if i in intents]
    return {"id": str(ticket_id), "text": text.strip(), "intents": intents}, None


def parse_ticket_lines(content: str, names: Sequence[str] | None = None) -> tuple[list[dict], list[str]]:
    """(tickets, errors): errors read "line N: what is wrong"; blank lines are skipped. ``names``: the
    intents a row may carry (the deployed team's catalogue, `catalogue_names`; None: the shipped one)."""
    names = rows_intents() if names is None else tuple(names)
    tickets: list[dict] = []
    errors: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        # A raw NUL would only read as an "invalid control character"; say what it is.
        raw_problem = text_problem(line)
        if raw_problem:
            errors.append(f"line {number}: the line {raw_problem}")
            continue
        try:
            item = load_json(line, root="$")
        except MalformedJSON as exc:
            errors.append(f"line {number}: not valid JSON ({exc.reason})")
            continue
        except UnstorableInput as exc:  # located problems read "line 2: $.text: holds a NUL character ..."
            located = "; ".join(f"{path}: {' '.join(messages)}" for path, messages in exc.problems.items())
            errors.append(f"line {number}: {located}")
            continue
        ticket, problem = _check(item, names)
        if ticket is not None and ticket["id"] in seen:
            ticket, problem = None, f"duplicate ticket id {item['id']!r}"
        if problem:
            errors.append(f"line {number}: {problem}")
            continue
        seen.add(ticket["id"])
        tickets.append(ticket)
    if not tickets and not errors:
        errors.append("the file holds no tickets")
    if len(tickets) > MAX_TICKETS:
        errors.append(f"at most {MAX_TICKETS} tickets per file (this one has {len(tickets)})")
    if len(errors) > MAX_ERRORS:
        errors = errors[:MAX_ERRORS] + [f"… and {len(errors) - MAX_ERRORS} more problems"]
    return tickets, errors
