"""The research report, how the writer composes it, what a reviewer can find in it, and the 4-dimension judge.

The final reward (docs/design.md#research-report) scores the report on factual **accuracy**, logical **depth**, **structure**
and **readability**, summed with weights. The judge here is deterministic and reads the report's facts,
so every score can be explained:

- accuracy = correct facts / facts in the report (0 for an empty report);
- depth = 0.7 · share of the topic's key claims covered + 0.3 · (framework suits the topic)
  − 0.2 · share of arguments whose supporting data is missing (logic gaps);
- structure = 0.5 · (structure suits the topic) + 0.25 · (no empty section) + 0.25 · (no repeated claim);
- readability = 1 − 0.3 · (detailed: padded) − 0.15 · (brief with more than four facts: cramped)
  − 0.3 · share of repeated claims.

Issues a reviewer can flag (`ISSUES`): ``fact_error`` (an incorrect fact), ``logic_gap`` (an argument
without its supporting data), ``redundancy`` (a claim stated twice, or padded "detailed" prose).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agents.envs.research_report.corpus import Fact, Topic

ISSUES: tuple[str, ...] = ("fact_error", "logic_gap", "redundancy")
DETAILS: tuple[str, ...] = ("brief", "standard", "detailed")
SECTIONS: dict[str, tuple[str, str, str, str]] = {
    "classic": ("Introduction", "Findings", "Analysis", "Conclusion"),
    "problem_solution": ("Problem", "Evidence", "Solutions", "Outlook"),
    "executive_summary": ("Summary", "Key figures", "Discussion", "Recommendation"),
}
FRAMEWORK_NAMES = {"pest": "a PEST lens", "swot": "a SWOT lens", "timeline": "a timeline"}
DEFAULT_WEIGHTS: dict[str, float] = {"accuracy": 0.35, "depth": 0.3, "structure": 0.2, "readability": 0.15}
PADDING = "This point deserves attention, as explained above, and it matters for the overall picture."
"""The sentence "detailed" prose adds to each fact (what reads as padding)."""


@dataclass(frozen=True)
class Paragraph:
    """One paragraph: its section, the facts it states and its text."""

    section: str
    facts: tuple[Fact, ...]
    text: str


@dataclass(frozen=True)
class Report:
    """A draft or final report."""

    structure: str
    detail: str
    framework: str | None
    paragraphs: tuple[Paragraph, ...] = field(default_factory=tuple)

    @property
    def facts(self) -> list[Fact]:
        """Every fact stated, in order (repeats included)."""
        return [fact for paragraph in self.paragraphs for fact in paragraph.facts]

    @property
    def text(self) -> str:
        """The report as plain text with section headings."""
        lines, section = [], None
        for paragraph in self.paragraphs:
            if paragraph.section != section:
                section = paragraph.section
                lines.append(f"## {section}")
            lines.append(paragraph.text)
        return "\n".join(lines)


def compose(
    topic: Topic,
    facts: Sequence[Fact],
    framework: str | None,
    structure: str,
    detail: str,
    rewrite: Callable[[str], str] | None = None,
) -> Report:
    """The writer's template: an opening, data in the second section, trends and arguments after.

    ``detail``: brief puts each section in one paragraph, standard writes one paragraph per fact,
    detailed adds an elaborating sentence to each. ``rewrite`` (a causal LM, when configured) rewrites
    each paragraph's text; the facts a paragraph carries stay the same.
    """
    first, second, third, fourth = SECTIONS[structure]
    lens = FRAMEWORK_NAMES.get(framework or "", "no particular framework")
    groups: dict[str, list[Fact]] = {second: [], third: [], fourth: []}
    for fact in facts:
        section = second if fact.kind == "data" else third if fact.kind == "trend" else fourth
        groups[section].append(fact)
    paragraphs = [Paragraph(first, (), f"This report asks: {topic.question} It uses {lens}.")]
    for section, members in groups.items():
        if not members:
            continue
        chunks = [members] if detail == "brief" else [[fact] for fact in members]
        for chunk in chunks:
            text = " ".join(fact.text for fact in chunk)
            if detail == "detailed":
                text += " " + PADDING
            paragraphs.append(Paragraph(section, tuple(chunk), text))
    if rewrite is not None:
        paragraphs = [Paragraph(p.section, p.facts, rewrite(p.text) or p.text) for p in paragraphs]
    return Report(structure, detail, framework, tuple(paragraphs))


def paragraph_issues(paragraph: Paragraph, report: Report) -> set[str]:
    """Issues present in one paragraph of ``report``."""
    claims = {fact.claim for fact in report.facts}
    counts: dict[str, int] = {}
    for fact in report.facts:
        counts[fact.claim] = counts.get(fact.claim, 0) + 1
    found = set()
    for fact in paragraph.facts:
        if not fact.correct:
            found.add("fact_error")
        if fact.kind == "argument" and fact.supports and fact.supports not in claims:
            found.add("logic_gap")
        if counts[fact.claim] > 1:
            found.add("redundancy")
    if report.detail == "detailed" and paragraph.facts:
        found.add("redundancy")
    return found


def report_issues(report: Report) -> set[str]:
    """Issues present anywhere in ``report``."""
    return (
        set().union(*(paragraph_issues(p, report) for p in report.paragraphs)) if report.paragraphs else set()
    )


def judge(
    report: Report, topic: Topic, key_claims: Sequence[str], weights: dict[str, float] | None = None
) -> dict:
    """Score ``report`` on the four dimensions (each in [0, 1]) and their weighted ``score``."""
    weights = weights or DEFAULT_WEIGHTS
    facts = report.facts
    claims = [fact.claim for fact in facts]
    distinct = set(claims)
    repeated = (len(claims) - len(distinct)) / len(claims) if claims else 0.0
    accuracy = sum(fact.correct for fact in facts) / len(facts) if facts else 0.0
    correct_claims = {fact.claim for fact in facts if fact.correct}
    coverage = len(correct_claims & set(key_claims)) / max(1, len(key_claims))
    arguments = [fact for fact in facts if fact.kind == "argument"]
    gaps = sum(1 for fact in arguments if fact.supports and fact.supports not in distinct)
    depth = 0.7 * coverage + 0.3 * (report.framework == topic.framework) - 0.2 * gaps / max(1, len(arguments))
    sections = {p.section for p in report.paragraphs}
    structure = (
        0.5 * (report.structure == topic.structure)
        + 0.25 * (len(sections) == 4)
        + 0.25 * (bool(facts) and repeated == 0.0)
    )
    readability = (
        1.0
        - 0.3 * (report.detail == "detailed")
        - 0.15 * (report.detail == "brief" and len(facts) > 4)
        - 0.3 * repeated
    )
    if not facts:
        readability = 0.0
    scores = {
        "accuracy": accuracy,
        "depth": max(0.0, depth),
        "structure": structure,
        "readability": max(0.0, readability),
    }
    scores["score"] = sum(weights[name] * scores[name] for name in DEFAULT_WEIGHTS)
    return scores
