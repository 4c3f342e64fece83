"""A specialist's default prompt under a catalogue of one's own: the intents it owns, in words.

The shipped roles' prompts describe the shipped work ("You are the logistics agent…"). A team whose spec
declares its own intents (``environment.params.intents``, e.g. a dataset's ``rental``, ``repair_booking``)
gives them to its specialists; a specialist whose spec leaves its prompt out is then told what it owns
(`owned_intents_prompt`), built from the intents' names and descriptions in one generic sentence pattern
(`intents_prompt`). The shipped catalogue keeps the role's default prompt exactly, so the shipped template's
prompts, and what its agents observe, stay as they were.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from agents.envs.customer_service.catalogue import SHIPPED_DESCRIPTIONS, make_catalogue
from agents.envs.customer_service.roster import DEFAULT_INTENTS, REVIEWER_ROLES
from agents.roles import ROLES

__all__ = ["intents_prompt", "owned_intents_prompt", "unmentioned_intents"]

PROMPT_LIMIT = 8_000  # a spec's prompt_chars: past it, the intents are named without their descriptions


def _listed(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def intents_prompt(intents: Sequence[tuple[str, str]]) -> str:
    """What a specialist owning ``intents`` ((name, description) pairs, in catalogue order) is told:
    "You answer the customer's requests about rental (rent a bike for a day) and repair booking. Leave
    other requests to your teammates." An empty description leaves the name alone."""

    def said(name: str, description: str) -> str:
        words = name.replace("_", " ")
        description = description.strip().rstrip(".").strip()
        first = description.split(maxsplit=1)[0] if description else ""
        if first[1:] == first[1:].lower():  # "Wants to rent…" reads "(wants to rent…)"; "VAT refunds" stays
            description = description[:1].lower() + description[1:]
        return f"{words} ({description})" if description else words

    closing = "Leave other requests to your teammates."
    text = f"You answer the customer's requests about {_listed([said(n, d) for n, d in intents])}. {closing}"
    if len(text) > PROMPT_LIMIT:
        text = f"You answer the customer's requests about {_listed([said(n, '') for n, _ in intents])}. {closing}"
    return text


def _declared(params: Mapping[str, object] | None) -> dict[str, str] | None:
    """The declared catalogue's intents → description (a shipped intent named alone keeps its own), in
    order; None for the shipped catalogue. A catalogue still being written (an intent without its
    description yet) counts by the names it has."""
    declared = (params or {}).get("intents")
    if not isinstance(declared, list | tuple) or not declared:
        return None
    try:
        if make_catalogue(declared).shipped:
            return None
    except ValueError:
        pass  # its problems are the validator's to name; the names it holds are enough here
    described: dict[str, str] = {}
    for entry in declared:
        if isinstance(entry, Mapping) and isinstance(entry.get("name"), str):
            text = entry.get("description")
            described[entry["name"]] = str(text if isinstance(text, str) and text.strip() else "") or (
                SHIPPED_DESCRIPTIONS.get(entry["name"], "")
            )
    return described


def _owned(agent: Mapping[str, object], described: Mapping[str, str]) -> list[tuple[str, str]]:
    """The catalogue's (name, description) pairs the agent owns, in catalogue order: the intents it names,
    else its shipped role's (as the roster reads it)."""
    given = agent.get("intents")
    role = str(agent.get("role") or "")
    names = set(given if isinstance(given, list | tuple) and given else DEFAULT_INTENTS.get(role, ()))
    return [(name, description) for name, description in described.items() if name in names]


def owned_intents_prompt(agent: Mapping[str, object], params: Mapping[str, object] | None) -> str | None:
    """The prompt a specialist (a spec agent's mapping: role, intents) that leaves its own out is given
    under environment ``params``: its owned intents in words (`intents_prompt`) when the spec declares a
    catalogue of its own; None (the role's default prompt) for the shipped catalogue, a reviewer, or an
    agent owning none of the catalogue's intents."""
    described = _declared(params)
    if described is None or str(agent.get("role") or "") in REVIEWER_ROLES:
        return None
    owned = _owned(agent, described)
    return intents_prompt(owned) if owned else None


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _speaks_of(said: Sequence[str], name: str) -> bool:
    """Whether a prompt's words name the intent: a word of its name (3+ letters), loosely ("repairs" for
    "repair", "refunds" for "refund": the same first five letters when both are that long)."""

    def same(a: str, b: str) -> bool:
        return a == b or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5]) or (len(b) >= 3 and a == f"{b}s")

    return any(same(word, part) for part in name.split("_") if len(part) >= 3 for word in said)


def unmentioned_intents(agent: Mapping[str, object], params: Mapping[str, object] | None) -> list[str]:
    """The intents a specialist with a prompt of its own (a spec agent's mapping) owns under a catalogue of
    one's own but its prompt does not name: the prompt may be out of date (it is never rewritten, only
    flagged). [] for the shipped catalogue, a reviewer, an agent without a prompt (it follows its intents),
    one whose prompt names all it owns, or one still told its role's default prompt that names some of them
    (a template's words, not the user's: flagged only when they name none, as after choosing a dataset)."""
    described = _declared(params)
    prompt = agent.get("prompt")
    if described is None or not isinstance(prompt, str) or str(agent.get("role") or "") in REVIEWER_ROLES:
        return []
    said = _words(prompt)
    owned = _owned(agent, described)
    missing = [name for name, _ in owned if not _speaks_of(said, name)]
    role = ROLES.get(str(agent.get("role") or ""))
    if role is not None and prompt == role.default_prompt and len(missing) < len(owned):
        return []  # the role's own words, still about its work (the shipped catalogue plus an intent)
    return missing
