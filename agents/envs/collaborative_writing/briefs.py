"""Writing briefs (data/collaborative_writing/briefs.jsonl), the cues a reader sees in a text, and the judge.

A brief asks for a post on a topic, in a tone (formal or casual), with a number of sections, covering named
aspects. It comes with six candidate sections (the brief's aspects and a few off-brief ones) and, per
section, four candidate content blocks — the writer's local pool. Each block carries a hidden label the
judge reads and the team never sees: ``on`` (on-brief, concrete, right tone), ``off`` (vague, often
keyword-stuffed), ``redundant`` (restates another section's point) or ``wrong_tone``.

`cues` computes what anyone can read off a block's text (keyword overlap and density, a number, tone
markers, another section's aspect); `judge` scores a draft on coverage, relevance, redundancy, tone and
length, in [0, 1]; `judge_text` scores a written post the same way, from what its text states.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agents import places

SPLITS = ("train", "test", "all")
BRIEF_FILES = places.DataFiles("collaborative_writing", "brief file")
"""What the ``briefs`` parameter names: a shipped brief file or one in the server's folder (`agents.places`)."""
KINDS = ("on", "off", "redundant", "wrong_tone")
CASUAL_MARKERS = ("!", "honestly", "good news", "fun fact", "heads up", "pretty neat")
STOPWORDS = {"of", "the", "and", "a", "in", "on", "for", "to", "is", "it", "about", "with"}
WEIGHTS = {"coverage": 0.35, "relevance": 0.2, "redundancy": 0.15, "tone": 0.15, "length": 0.15}


class BriefError(ValueError):
    """The brief file is missing or malformed."""


@dataclass(frozen=True)
class Block:
    text: str
    kind: str


@dataclass(frozen=True)
class Section:
    heading: str
    aspect: str
    on_brief: bool
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Brief:
    id: str
    split: str
    topic: str
    tone: str
    sections_wanted: int
    aspects: tuple[str, ...]
    text: str
    sections: tuple[Section, ...]


def default_path() -> Path:
    override = os.environ.get("MASE_WRITING_BRIEFS")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[3] / "data" / "collaborative_writing" / "briefs.jsonl"


def load_briefs(path: str | Path | None = None, split: str = "all") -> list[Brief]:
    """The briefs of `split` ("train", "test" or "all"), default: the shipped file."""
    path = places.data_path(path, BRIEF_FILES) if path is not None else default_path()
    shown = places.shown(path)
    if split not in SPLITS:
        raise BriefError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    if not path.is_file():
        raise BriefError(f"collaborative_writing: no brief file at {shown}")
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            brief = Brief(
                id=str(row["id"]),
                split=str(row["split"]),
                topic=str(row["topic"]),
                tone=str(row["tone"]),
                sections_wanted=int(row["sections_wanted"]),
                aspects=tuple(row["aspects"]),
                text=str(row["brief"]),
                sections=tuple(
                    Section(
                        str(s["heading"]),
                        str(s["aspect"]),
                        bool(s["on_brief"]),
                        tuple(Block(str(b["text"]), str(b["kind"])) for b in s["blocks"]),
                    )
                    for s in row["sections"]
                ),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise BriefError(f"{shown}:{number}: not a brief ({exc})") from None
        if brief.tone not in ("formal", "casual") or not brief.sections:
            raise BriefError(f"{shown}:{number}: tone must be formal or casual and sections non-empty")
        if any(b.kind not in KINDS for s in brief.sections for b in s.blocks):
            raise BriefError(f"{shown}:{number}: block kinds must be among {', '.join(KINDS)}")
        if split == "all" or brief.split == split:
            out.append(brief)
    if not out:
        raise BriefError(f"{shown}: no briefs in split {split!r}")
    return out


def words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOPWORDS]


def casual(text: str) -> bool:
    low = text.lower()
    return any(m in low for m in CASUAL_MARKERS)


def heading_overlap(heading: str, text: str) -> tuple[float, float]:
    """(share of the heading's words in `text`, occurrences of heading words / 8)."""
    wanted, seen = set(words(heading)), words(text)
    share = len(wanted & set(seen)) / max(1, len(wanted))
    return share, min(1.0, sum(w in wanted for w in seen) / 8)


def jaccard(a: str, b: str) -> float:
    x, y = set(words(a)), set(words(b))
    return len(x & y) / max(1, len(x | y))


def judge(brief: Brief, draft: list[tuple[Section, Block, bool]]) -> dict[str, float]:
    """Score a draft: its (section, block, tone fixed by the polisher) rows; every part and the weighted score.

    coverage: the brief's aspects with an on-brief block in their section (a polished wrong-tone block
    counts half); relevance: share of sections on the brief with a non-``off`` block; redundancy: 1 − share
    of redundant blocks; tone: share of blocks in the brief's tone (a polished one counts 0.7); length:
    1 − |sections − wanted| / wanted.
    """
    if not draft:
        parts = {"coverage": 0.0, "relevance": 0.0, "redundancy": 0.0, "tone": 0.0, "length": 0.0}
        return {**parts, "score": 0.0}
    covered = 0.0
    for aspect in brief.aspects:
        credit = 0.0
        for section, block, fixed in draft:
            if section.aspect == aspect:
                if block.kind == "on":
                    credit = max(credit, 1.0)
                elif block.kind == "wrong_tone":
                    credit = max(credit, 0.5 if fixed else 0.3)
        covered += credit
    n = len(draft)
    relevance = sum(s.on_brief and b.kind in ("on", "wrong_tone") for s, b, _ in draft) / n
    redundancy = 1.0 - sum(b.kind == "redundant" for _, b, _ in draft) / n
    tone = sum(1.0 if b.kind != "wrong_tone" else (0.7 if fixed else 0.0) for _, b, fixed in draft) / n
    length = max(0.0, 1.0 - abs(n - brief.sections_wanted) / brief.sections_wanted)
    parts = {
        "coverage": covered / len(brief.aspects),
        "relevance": relevance,
        "redundancy": redundancy,
        "tone": tone,
        "length": length,
    }
    return {**parts, "score": sum(WEIGHTS[k] * v for k, v in parts.items())}


def read_draft(brief: Brief, text: str, fixed: Iterable[str] = ()) -> list[tuple[Section, Block, bool]]:
    """The draft a written post states, as the judge reads it: one row per ``## Heading``; its block is the
    brief's candidate the section's text states (word for word, else the one it shares most words with,
    jaccard ≥ 0.5); text that states none is read as off-brief. A wrong-tone block counts as fixed when
    the team fixed that section's tone (``fixed``: headings) or the text reads in the brief's tone."""
    known = {" ".join(s.heading.lower().split()): s for s in brief.sections}
    fixed = set(fixed)
    rows, heading, body = [], None, []

    def close() -> None:
        if heading is None:
            return
        written = " ".join(" ".join(body).split())
        section = known.get(heading.lower()) or Section(heading, "", False, ())
        block = next((b for b in section.blocks if " ".join(b.text.split()) == written), None)
        if block is None:
            score, best = max(((jaccard(b.text, written), b) for b in section.blocks), default=(0.0, None),
                              key=lambda pair: pair[0])  # fmt: skip
            block = best if best is not None and score >= 0.5 else Block(written, "off")
        in_tone = casual(written) == (brief.tone == "casual")
        rows.append((section, block, block.kind == "wrong_tone" and (section.heading in fixed or in_tone)))

    for line in text.splitlines():
        if line.startswith("#"):
            close()
            heading, body = " ".join(line.lstrip("#").split()), []
        elif line.strip():
            body.append(line.strip())
    close()
    return rows


def judge_text(brief: Brief, text: str, fixed: Iterable[str] = ()) -> dict[str, float]:
    """`judge`'s parts and score of the post ``text`` states (`read_draft`)."""
    return judge(brief, read_draft(brief, text, fixed))
