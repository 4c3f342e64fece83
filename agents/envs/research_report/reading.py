"""Judge a report from its written text: what a reader finds in it, scored by the same judge as a draft.

A deployed team's report may be written by a language model, so the judge cannot trust the blocks the team
chose; it reads the text back (`read_report`) and scores what it finds (`judge_text`):

- sections: the ``## Heading`` lines; the structure is the one whose section names the headings use;
- facts: a corpus fact is stated where its sentence appears word for word (case and spacing aside), or
  where a sentence carries all of the fact's numbers and most of its content words (a paraphrase); of the
  variants of one claim (a correct figure and a wrong one) a sentence states at most one;
- the framework: a PEST, SWOT or timeline lens named in a paragraph that states no fact;
- detail: padded (the template's stock elaboration next to a fact), brief (a paragraph states several
  facts) or standard.

For text the template writer wrote from a draft, the reading gives the draft's facts, sections and choices,
so `judge_text` equals `judge` of the draft (tests/serving/generation/test_sections.py checks every topic).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agents.envs.research_report.corpus import Fact, Topic
from agents.envs.research_report.judge import DEFAULT_WEIGHTS, PADDING, SECTIONS, Paragraph, Report, judge

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
_WORD = re.compile(r"[a-z]+")
_SENTENCE = re.compile(r".+?(?:[.!?]+(?=\s|$)|$)")
_LENSES = (("pest", re.compile(r"\bPEST\b")), ("swot", re.compile(r"\bSWOT\b")))
_TIMELINE = re.compile(r"\btimeline\b", re.I)
_STOP = {"the", "a", "an", "of", "in", "on", "to", "and", "or", "for", "by", "is", "are", "was", "were", "at"}
PARAPHRASE_SHARE = 0.7
"""Share of a fact's content words a sentence must hold (with all its numbers) to state the fact."""


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2}


def _numbers(text: str) -> set[str]:
    return set(_NUMBER.findall(text))


def _stated(paragraph: str, facts: dict[str, Fact]) -> list[Fact]:
    """The facts one paragraph states, in order of appearance: word-for-word ones first (longest first, so
    a fact inside a longer one is not counted twice), then paraphrases, sentence by sentence."""
    text, found = _norm(paragraph), []
    for key in sorted(facts, key=len, reverse=True):
        pattern = re.compile(rf"(?<![\w.]){re.escape(key)}(?!\w)")
        for match in pattern.finditer(text):
            found.append((match.start(), facts[key]))
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)  # keep positions, drop the words
    for sentence in _SENTENCE.finditer(text):
        words, numbers = _content(sentence.group(0)), _numbers(sentence.group(0))
        best: dict[str, tuple[float, Fact]] = {}  # claim -> its best variant in this sentence
        for fact in facts.values():
            wanted = _content(fact.text)
            if not wanted or not _numbers(fact.text) <= numbers:
                continue
            share = len(wanted & words) / len(wanted)
            if share >= PARAPHRASE_SHARE and share > best.get(fact.claim, (0.0, None))[0]:
                best[fact.claim] = (share, fact)
        found += [(sentence.start(), fact) for _, fact in best.values()]
    return [fact for _, fact in sorted(found, key=lambda pair: pair[0])]


def read_report(text: str, candidates: Iterable[Fact]) -> Report:
    """The report ``text`` states, as the judge reads it (``candidates``: the facts a reader can recognise,
    e.g. every fact of the topic's documents)."""
    facts: dict[str, Fact] = {}
    for fact in candidates:
        facts.setdefault(_norm(fact.text), fact)  # one sentence, one fact (restated copies are alike)
    section, paragraphs = "", []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        elif line:
            paragraphs.append(Paragraph(section, tuple(_stated(line, facts)), line))
    headings = list(dict.fromkeys(p.section for p in paragraphs if p.section))
    used = {name: sum(h in names for h in headings) for name, names in SECTIONS.items()}
    structure = max(used, key=used.get) if any(used.values()) else ""
    framing = " ".join(p.text for p in paragraphs if not p.facts)
    framework = next((name for name, lens in _LENSES if lens.search(framing)), None)
    if framework is None and _TIMELINE.search(framing):
        framework = "timeline"
    if any(p.facts and PADDING.lower() in p.text.lower() for p in paragraphs):
        detail = "detailed"
    elif any(len(p.facts) > 1 for p in paragraphs):
        detail = "brief"
    else:
        detail = "standard"
    return Report(structure, detail, framework, tuple(paragraphs))


def judge_text(
    text: str,
    topic: Topic,
    candidates: Sequence[Fact],
    key_claims: Sequence[str],
    weights: dict[str, float] | None = None,
) -> dict:
    """`judge`'s four dimensions and weighted score of the report ``text`` states (`read_report`)."""
    return judge(read_report(text, candidates), topic, key_claims, weights or DEFAULT_WEIGHTS)
