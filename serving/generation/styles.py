"""Reply styles: one reply's parts rewritten in a style the team's writer chose (`training.reply_writer`).

Every style is a wrapper of the parts the agents wrote, with no word of any domain, so it works for any
intent catalogue and any backend:

- ``plain``: the parts as written (the reply of a team without a writer, byte for byte);
- ``apologetic``: an apology for the trouble opens the reply, before the parts;
- ``brief``: each part cut to its first sentence;
- ``steps``: each part's sentences as numbered steps, one a line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from training.reply_writer import PLAIN, STYLES

APOLOGY = "I'm sorry for the trouble this has caused, and thank you for your patience."
BRIEF_SENTENCES = 1
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split after . ! or ? followed by a space)."""
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def styled_parts(style: str, parts: Sequence[str]) -> list[str]:
    """``parts`` (one per writing agent) in ``style``; "plain" gives them back unchanged."""
    if style not in STYLES:
        raise ValueError(f"unknown reply style {style!r}; one of {', '.join(STYLES)}")
    parts = list(parts)
    if style == PLAIN or not any(p.strip() for p in parts):
        return parts
    if style == "apologetic":
        return [APOLOGY, *parts]
    if style == "brief":
        return [" ".join(sentences(p)[:BRIEF_SENTENCES]) or p for p in parts]
    out, n = [], 0
    for p in parts:
        lines = []
        for s in sentences(p):
            n += 1
            lines.append(f"{n}. {s}")
        out.append("\n".join(lines) or p)
    return out
