"""The research-report sandbox corpus (docs/design.md#research-report): topics, documents and their key facts, as JSONL.

``data/research_report/topics.jsonl``: one topic per line ``{"topic", "question", "keywords",
"framework", "structure", "domain", "split"}`` — the framework (pest | swot | timeline) and report
structure that suit it, its domain (one of `DOMAINS`; agents see it) and whether it is a ``train`` or a
``test`` topic (``domain`` and ``split`` are optional: "general" and "train").

``data/research_report/documents.jsonl``: one document per line ``{"id", "topic", "title", "source",
"reliable", "relevant", "text", "facts": [{"id", "claim", "kind", "text", "key", "correct", "supports"}]}``.
``kind`` is data | trend | argument; an argument ``supports`` names the data claim it rests on (an
argument without it in the report is a logic gap). The shipped corpus is written by
``data/research_report/generate.py`` (40 topics, 30 train / 10 test; how sources are laid out is
described there). Figures are illustrative, written for the simulation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from agents import places

DEFAULT_CORPUS_DIR = Path(__file__).resolve().parents[3] / "data" / "research_report"
FRAMEWORKS: tuple[str, ...] = ("pest", "swot", "timeline")
STRUCTURES: tuple[str, ...] = ("classic", "problem_solution", "executive_summary")
FACT_KINDS: tuple[str, ...] = ("data", "trend", "argument")
DOMAINS: tuple[str, ...] = ("energy", "health", "technology", "economy", "environment")
SPLITS: tuple[str, ...] = ("train", "test")
CORPUS = places.DataFiles(
    "research_report", "corpus", directory=True, holds=("topics.jsonl", "documents.jsonl")
)
"""What the ``corpus`` parameter names: a corpus directory in the server's folder (`agents.places`)."""


class CorpusError(ValueError):
    """The corpus files cannot be used; the message names the file, line and what to change."""


@dataclass(frozen=True)
class Fact:
    """One statement in a document; ``claim`` groups restatements of the same fact across documents."""

    id: str
    claim: str
    kind: str
    text: str
    key: bool
    correct: bool
    supports: str | None = None


@dataclass(frozen=True)
class Document:
    """A source the researcher can pick."""

    id: str
    topic: str
    title: str
    source: str
    reliable: bool
    relevant: bool
    text: str
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class Topic:
    """A report assignment and the framework / structure a good analyst and writer would choose."""

    topic: str
    question: str
    keywords: tuple[str, ...]
    framework: str
    structure: str
    domain: str = "general"
    split: str = "train"


def _rows(path: Path) -> list[tuple[str, dict]]:
    shown = places.shown(path)
    if not path.is_file():
        raise CorpusError(f"corpus file not found: {shown}")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{shown}:{number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(row, dict):
            raise CorpusError(f"{shown}:{number}: expected a JSON object")
        rows.append((f"{shown}:{number}", row))
    return rows


def load_corpus(directory: str | Path | None = None) -> tuple[dict[str, Topic], dict[str, list[Document]]]:
    """Topics by name and their documents (file order) from ``topics.jsonl`` and ``documents.jsonl``.

    Raises `CorpusError` naming the file and line for bad JSON, missing fields, an unknown framework,
    structure or fact kind, or a document of an unknown topic.
    """
    directory = places.data_path(directory, CORPUS) if directory is not None else DEFAULT_CORPUS_DIR
    topics: dict[str, Topic] = {}
    for where, row in _rows(directory / "topics.jsonl"):
        try:
            topic = Topic(
                str(row["topic"]),
                str(row["question"]),
                tuple(row["keywords"]),
                row["framework"],
                row["structure"],
                str(row.get("domain", "general")),
                str(row.get("split", "train")),
            )
        except (KeyError, TypeError) as exc:
            raise CorpusError(f"{where}: missing or malformed field {exc}") from None
        if topic.framework not in FRAMEWORKS:
            raise CorpusError(
                f"{where}: unknown framework {topic.framework!r}; use one of {', '.join(FRAMEWORKS)}"
            )
        if topic.structure not in STRUCTURES:
            raise CorpusError(
                f"{where}: unknown structure {topic.structure!r}; use one of {', '.join(STRUCTURES)}"
            )
        if topic.split not in SPLITS:
            raise CorpusError(f"{where}: unknown split {topic.split!r}; use one of {', '.join(SPLITS)}")
        topics[topic.topic] = topic
    documents: dict[str, list[Document]] = {name: [] for name in topics}
    for where, row in _rows(directory / "documents.jsonl"):
        try:
            facts = tuple(
                Fact(
                    str(f["id"]),
                    str(f["claim"]),
                    f["kind"],
                    str(f["text"]),
                    bool(f["key"]),
                    bool(f["correct"]),
                    f.get("supports"),
                )
                for f in row["facts"]
            )
            doc = Document(
                str(row["id"]),
                str(row["topic"]),
                str(row["title"]),
                str(row["source"]),
                bool(row["reliable"]),
                bool(row["relevant"]),
                str(row["text"]),
                facts,
            )
        except (KeyError, TypeError) as exc:
            raise CorpusError(f"{where}: missing or malformed field {exc}") from None
        if doc.topic not in topics:
            raise CorpusError(f"{where}: document {doc.id!r} names unknown topic {doc.topic!r}")
        bad = [f.kind for f in facts if f.kind not in FACT_KINDS]
        if bad:
            raise CorpusError(f"{where}: unknown fact kind {bad[0]!r}; use one of {', '.join(FACT_KINDS)}")
        documents[doc.topic].append(doc)
    empty = [name for name, docs in documents.items() if not docs]
    if not topics or empty:
        raise CorpusError(
            f"{places.shown(directory)}: every topic needs documents (none for: {', '.join(empty) or 'any'})"
        )
    return topics, documents
