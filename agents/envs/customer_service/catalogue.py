"""The intent catalogue a routing team answers: which intents there are, what each means, the words that
signal it, and the action that answers it.

The shipped catalogue (`SHIPPED`) is the customer-service generator's eight intents. A spec may declare
its own in ``environment.params.intents``::

    "intents": [
      {"name": "password_reset", "description": "Locked out, forgot or wants to change a password.",
       "keywords": ["password", "locked out"]},
      {"name": "complaint"}
    ]

A name is lower-case letters, digits and underscores. An intent the shipped catalogue knows may be named
alone: it keeps its description and action (so the shipped template plus one new intent keeps the eight
as they were); any other needs a description. Keywords are optional: plain words or phrases, matched
whole-word, case-insensitively; the rule fallback and the keyword reader use them (`agents.envs.
customer_service.rules`). An empty list (the default) is the shipped catalogue. The action answering a
new intent is ``answer_<name>``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

INTENT_NAME = re.compile(r"[a-z][a-z0-9_]{0,47}")
MAX_INTENTS = 64
MAX_KEYWORDS = 50
MAX_DESCRIPTION = 500
RESERVED = ("pass", "continue", "approve", "send_back", "none")
"""Names an intent may not take: the team's other actions, and the out-of-scope answer."""

SHIPPED_DESCRIPTIONS: dict[str, str] = {
    "product_question": "Questions about a product: specifications, size, material, compatibility, stock.",
    "recommendation": "Asks which product to buy: suggestions, comparisons, gift ideas.",
    "order_tracking": "Where an order or parcel is now: tracking number, shipping status, courier.",
    "delivery_delay": "A delivery that is late, overdue or has not arrived yet.",
    "address_change": "Change or correct the delivery address of an order, redirect a parcel.",
    "return_refund": "Return an item, cancel an order, get the money back.",
    "damaged_item": "An item that arrived broken, cracked, dented, leaking or not working.",
    "complaint": "Unhappy with the service or staff, asks to escalate to a manager.",
}
SHIPPED_ACTIONS: dict[str, str] = {
    "product_question": "answer_product_question",
    "recommendation": "recommend_product",
    "order_tracking": "track_order",
    "delivery_delay": "explain_delay",
    "address_change": "change_address",
    "return_refund": "process_refund",
    "damaged_item": "handle_damage",
    "complaint": "resolve_complaint",
}


@dataclass(frozen=True)
class Intent:
    """One intent: its name, what it means, the words that signal it and the action that answers it."""

    name: str
    description: str
    action: str
    keywords: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the designer's listing, a checkpoint's record)."""
        return {"name": self.name, "description": self.description, "keywords": list(self.keywords)}


@dataclass(frozen=True)
class Catalogue:
    """The intents of one routing team, in a fixed order (a multi-hot vector's index is the position)."""

    intents: tuple[Intent, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(i.name for i in self.intents)

    @property
    def actions(self) -> dict[str, str]:
        """Intent → the action answering it."""
        return {i.name: i.action for i in self.intents}

    @property
    def action_intents(self) -> dict[str, str]:
        """Action → the intent it answers."""
        return {i.action: i.name for i in self.intents}

    @property
    def descriptions(self) -> dict[str, str]:
        return {i.name: i.description for i in self.intents}

    @property
    def shipped(self) -> bool:
        """Whether this is the shipped catalogue exactly (what the hand-written rules were written for)."""
        return self == SHIPPED

    def listing(self) -> tuple[dict[str, Any], ...]:
        """Each intent's name and description (what the designer shows beside an intent's checkbox)."""
        return tuple({"name": i.name, "description": i.description} for i in self.intents)

    def order(self, intents: Sequence[str]) -> tuple[str, ...]:
        """``intents`` without repeats, in catalogue order (names the catalogue lacks are dropped)."""
        wanted = set(intents)
        return tuple(name for name in self.names if name in wanted)


SHIPPED = Catalogue(
    tuple(Intent(name, SHIPPED_DESCRIPTIONS[name], SHIPPED_ACTIONS[name]) for name in SHIPPED_DESCRIPTIONS)
)
"""The customer-service generator's eight intents."""


def catalogue_problems(value: Any, path: str = "$.intents") -> list[tuple[str, str]]:
    """(JSON path, message) for every problem of an ``intents`` parameter; [] for a usable one."""
    if value is None or (isinstance(value, list | tuple) and not value):
        return []
    if not isinstance(value, list | tuple):  # a loaded spec holds tuples
        return [(path, "must be a list of intents, each {name, description, keywords}")]
    if len(value) > MAX_INTENTS:
        return [(path, f"at most {MAX_INTENTS} intents")]
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    for k, entry in enumerate(value):
        where = f"{path}[{k}]"
        if not isinstance(entry, Mapping):
            problems.append((where, "must be an object {name, description, keywords}"))
            continue
        unknown = sorted(set(entry) - {"name", "description", "keywords"})
        if unknown:
            problems.append(
                (
                    where,
                    f"unknown field(s) {', '.join(map(str, unknown))}; known: name, description, keywords",
                )
            )
        name = entry.get("name")
        if not isinstance(name, str) or not INTENT_NAME.fullmatch(name):
            problems.append(
                (
                    f"{where}.name",
                    "must be lower-case letters, digits and underscores, starting with a letter (at most 48)",
                )
            )
        elif name in RESERVED:
            problems.append((f"{where}.name", f"{name!r} is reserved; choose another name"))
        elif name in seen:
            problems.append((f"{where}.name", f"intent {name!r} is declared twice"))
        else:
            seen.add(name)
        problems += _text_problems(entry, where, known=isinstance(name, str) and name in SHIPPED_DESCRIPTIONS)
    return problems


def _text_problems(entry: Mapping[str, Any], where: str, known: bool) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    description = entry.get("description")
    if description is None and not known:
        problems.append(
            (
                f"{where}.description",
                "say in a sentence what this intent means (the readers and the fallback use it)",
            )
        )
    elif description is not None and (not isinstance(description, str) or not description.strip()):
        problems.append((f"{where}.description", "must be a non-empty text"))
    elif isinstance(description, str) and len(description) > MAX_DESCRIPTION:
        problems.append((f"{where}.description", f"at most {MAX_DESCRIPTION} characters"))
    keywords = entry.get("keywords", [])
    if not isinstance(keywords, list | tuple) or not all(isinstance(w, str) and w.strip() for w in keywords):
        problems.append((f"{where}.keywords", "must be a list of non-empty words or phrases"))
    elif len(keywords) > MAX_KEYWORDS:
        problems.append((f"{where}.keywords", f"at most {MAX_KEYWORDS} keywords"))
    return problems


def make_catalogue(value: Any) -> Catalogue:
    """The catalogue an ``intents`` parameter declares (empty or None: `SHIPPED`); ValueError naming every
    problem of a bad one."""
    if isinstance(value, Catalogue):
        return value
    if value is None or (isinstance(value, list | tuple) and not value):
        return SHIPPED
    problems = catalogue_problems(value)
    if problems:
        raise ValueError("; ".join(f"{path}: {message}" for path, message in problems))
    intents = []
    for entry in value:
        name = entry["name"]
        description = entry.get("description") or SHIPPED_DESCRIPTIONS[name]
        keywords = tuple(dict.fromkeys(w.strip().lower() for w in entry.get("keywords", [])))
        intents.append(
            Intent(name, description.strip(), SHIPPED_ACTIONS.get(name, f"answer_{name}"), keywords)
        )
    return Catalogue(tuple(intents))
