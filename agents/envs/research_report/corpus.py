"""The research-report sandbox corpus (docs/design.md#research-report): topics, documents and their key facts, as JSONL.

``data/research_report/topics.jsonl``: one topic per line ``{"topic", "question", "keywords",
"framework", "structure"}`` — the framework (pest | swot | timeline) and report structure that suit it.

``data/research_report/documents.jsonl``: one document per line ``{"id", "topic", "title", "source",
"reliable", "relevant", "text", "facts": [{"id", "claim", "kind", "text", "key", "correct", "supports"}]}``.
Every topic has reliable on-topic documents (their facts are the key facts; two documents repeat a claim,
so copying both is redundant), one unreliable document whose figures contradict the key facts, and
off-topic decoys that share keywords. ``kind`` is data | trend | argument; an argument ``supports`` names
the data claim it rests on (an argument without it in the report is a logic gap). Figures are
illustrative, written for the simulation.

CLI: ``python -m agents.envs.research_report.corpus --out data/research_report``
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_CORPUS_DIR = Path(__file__).resolve().parents[3] / "data" / "research_report"
FRAMEWORKS: tuple[str, ...] = ("pest", "swot", "timeline")
STRUCTURES: tuple[str, ...] = ("classic", "problem_solution", "executive_summary")
FACT_KINDS: tuple[str, ...] = ("data", "trend", "argument")


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


# (topic, question, keywords, framework, structure,
#  facts: claim -> (kind, text, supports), wrong: claim -> wrong text, decoys: [(title, fact text)])
_TOPICS: list[dict] = [
    {
        "topic": "ev_market",
        "titles": [
            "EV sales and the price of battery packs, 2020-2023",
            "Charging networks: growth and gaps",
            "Outlook: will cheaper batteries keep EV sales rising?",
            "Battery costs and rural charging in focus",
        ],
        "question": "How fast is the electric-vehicle market growing and what holds it back?",
        "keywords": ["electric", "vehicle", "ev", "battery", "charging"],
        "framework": "swot",
        "structure": "executive_summary",
        "facts": {
            "sales": (
                "data",
                "Electric cars made up 18% of new car sales in 2023, up from 4% in 2020.",
                None,
            ),
            "battery_cost": (
                "data",
                "Average battery pack prices fell to about 140 USD per kWh in 2023.",
                None,
            ),
            "chargers": (
                "data",
                "Public charging points grew 40% in 2023 but remain concentrated in cities.",
                None,
            ),
            "trend": (
                "trend",
                "Cheaper batteries keep pulling the price of mid-size EVs towards petrol cars.",
                None,
            ),
            "arg_growth": (
                "argument",
                "Falling battery costs make further sales growth likely.",
                "battery_cost",
            ),
            "arg_barrier": (
                "argument",
                "Rural charging gaps are now the main barrier to adoption.",
                "chargers",
            ),
        },
        "wrong": {
            "sales": "Electric cars made up 45% of new car sales in 2023.",
            "battery_cost": "Battery pack prices rose to 400 USD per kWh in 2023.",
        },
        "decoys": [
            (
                "Electric scooters: a city commuting guide",
                "Scooter rental trips doubled in three large cities.",
            ),
            (
                "Battery recycling start-ups raise funds",
                "Recycling firms raised 2 billion USD in venture funding.",
            ),
        ],
    },
    {
        "topic": "remote_work",
        "titles": [
            "Working from home: share of paid days and output",
            "Offices emptying out: vacancy and new routines",
            "Hybrid schedules after the pandemic",
            "What hybrid work means for landlords",
        ],
        "question": "What does remote work do to productivity and office demand?",
        "keywords": ["remote", "work", "office", "productivity", "hybrid"],
        "framework": "pest",
        "structure": "classic",
        "facts": {
            "share": ("data", "About 28% of paid workdays were done from home in 2023.", None),
            "productivity": (
                "data",
                "Hybrid schedules showed no productivity loss in a two-year trial.",
                None,
            ),
            "vacancy": ("data", "Office vacancy in large US cities reached 19% in 2023.", None),
            "trend": ("trend", "Firms are settling on two to three office days a week.", None),
            "arg_hybrid": ("argument", "Hybrid work can be kept without hurting output.", "productivity"),
            "arg_office": ("argument", "Office landlords face a lasting fall in demand.", "vacancy"),
        },
        "wrong": {
            "share": "Almost 70% of paid workdays were done from home in 2023.",
            "productivity": "Hybrid schedules cut productivity by half in every trial.",
        },
        "decoys": [
            ("Remote controls for smart homes compared", "Universal remotes now support most TV brands."),
            ("Office chair ergonomics", "Adjustable lumbar support reduces back pain complaints."),
        ],
    },
    {
        "topic": "urban_heat",
        "titles": [
            "Night-time temperatures in dense districts",
            "Cool roofs and a warming climate",
            "Trees, heat and health in cities",
            "Street trees: a measurement campaign",
        ],
        "question": "How serious are urban heat islands and which measures cool cities?",
        "keywords": ["urban", "heat", "city", "cooling", "trees"],
        "framework": "pest",
        "structure": "problem_solution",
        "facts": {
            "gap": (
                "data",
                "Dense city centres can be up to 7 C warmer than nearby countryside at night.",
                None,
            ),
            "trees": ("data", "Streets with full tree canopy measured 3 C lower surface temperatures.", None),
            "roofs": (
                "data",
                "Reflective roofs lowered indoor peaks by about 1.5 C in test buildings.",
                None,
            ),
            "trend": ("trend", "Heatwaves are becoming more frequent in most large cities.", None),
            "arg_trees": (
                "argument",
                "Planting trees is among the most effective cooling measures.",
                "trees",
            ),
            "arg_health": (
                "argument",
                "Night-time heat is a growing health risk for older residents.",
                "gap",
            ),
        },
        "wrong": {
            "gap": "City centres are never more than 0.5 C warmer than the countryside.",
            "trees": "Tree canopy makes streets 4 C hotter because it traps air.",
        },
        "decoys": [
            ("Heat pumps for apartments", "Heat pump installations rose 11% last year."),
            ("City marathon training tips", "Runners should hydrate every 20 minutes in hot weather."),
        ],
    },
    {
        "topic": "chip_supply",
        "titles": [
            "Where advanced chips are made",
            "Chip lead times and the fab building boom",
            "Concentration risk in the chip industry",
            "The chip shortage two years on",
        ],
        "question": "How exposed is the semiconductor supply chain and what is being done?",
        "keywords": ["semiconductor", "chip", "supply", "fab", "foundry"],
        "framework": "swot",
        "structure": "executive_summary",
        "facts": {
            "concentration": ("data", "Over 60% of advanced chip manufacturing sits in one region.", None),
            "fabs": (
                "data",
                "More than 40 new fabrication plants were announced between 2021 and 2023.",
                None,
            ),
            "lead_time": (
                "data",
                "Chip lead times peaked at 27 weeks in 2022 and fell below 15 in 2023.",
                None,
            ),
            "trend": ("trend", "Governments subsidise domestic fabs to spread production.", None),
            "arg_risk": ("argument", "Geographic concentration is the main supply risk.", "concentration"),
            "arg_relief": ("argument", "The shortage has eased but new capacity takes years.", "lead_time"),
        },
        "wrong": {
            "concentration": "Chip manufacturing is spread evenly over ten regions.",
            "lead_time": "Chip lead times kept rising to 60 weeks in 2023.",
        },
        "decoys": [
            ("Potato chip brands ranked", "Kettle-cooked chips outsold regular chips in one survey."),
            ("Supply chain software buyers guide", "Inventory tools cut stock-outs for small shops."),
        ],
    },
    {
        "topic": "plant_protein",
        "titles": [
            "Meat alternatives: sales and prices in 2023",
            "Repeat buyers and the shift to simpler products",
            "Why plant-based sales stalled",
            "Price gap versus beef",
        ],
        "question": "Is the plant-based meat market still growing?",
        "keywords": ["plant", "meat", "protein", "vegan", "alternative"],
        "framework": "swot",
        "structure": "classic",
        "facts": {
            "sales": ("data", "US retail sales of plant-based meat fell 12% in 2023.", None),
            "price": ("data", "Plant-based burgers still cost about 40% more than beef per kilogram.", None),
            "repeat": ("data", "Fewer than half of first-time buyers purchase again within a year.", None),
            "trend": ("trend", "Producers are shifting to cheaper, less processed products.", None),
            "arg_price": ("argument", "Price parity is needed before sales grow again.", "price"),
            "arg_taste": ("argument", "Low repeat purchase points to taste and value problems.", "repeat"),
        },
        "wrong": {
            "sales": "Plant-based meat sales tripled in 2023.",
            "price": "Plant-based burgers are now half the price of beef.",
        },
        "decoys": [
            ("Houseplants that survive low light", "Snake plants tolerate weeks without water."),
            ("Protein powder for athletes", "Whey protein remains the best-selling supplement."),
        ],
    },
    {
        "topic": "ai_health",
        "titles": [
            "Cleared AI medical devices by specialty",
            "Bias in a hospital risk algorithm",
            "AI in imaging: from pilots to routine",
            "Regulators and clinical AI",
        ],
        "question": "Where does AI help in healthcare today and what are the risks?",
        "keywords": ["ai", "health", "clinical", "diagnosis", "hospital"],
        "framework": "pest",
        "structure": "problem_solution",
        "facts": {
            "approvals": (
                "data",
                "Regulators had cleared about 700 AI-enabled medical devices by 2023.",
                None,
            ),
            "radiology": ("data", "Roughly three quarters of cleared devices are for radiology.", None),
            "bias": ("data", "A widely used risk model underestimated need for one patient group.", None),
            "trend": ("trend", "Hospitals are moving from pilots to routine use in imaging.", None),
            "arg_imaging": ("argument", "Imaging is where AI is most mature.", "radiology"),
            "arg_oversight": ("argument", "Models need bias audits before clinical use.", "bias"),
        },
        "wrong": {
            "approvals": "No AI medical device has ever been cleared by a regulator.",
            "radiology": "Only 2% of cleared AI devices are for radiology.",
        },
        "decoys": [
            ("AI art generators reviewed", "Image generators produce 4 pictures per prompt."),
            ("Hospital parking fees", "Average parking at city hospitals costs 3 USD per hour."),
        ],
    },
]


def _build() -> tuple[list[Topic], list[Document]]:
    topics, documents = [], []
    for spec in _TOPICS:
        name = spec["topic"]
        topics.append(
            Topic(name, spec["question"], tuple(spec["keywords"]), spec["framework"], spec["structure"])
        )
        facts = spec["facts"]
        claims = list(facts)
        groups = [claims[0:2], claims[2:4], claims[4:6], [claims[1], claims[5]]]  # the last one repeats
        sources = ["statistics office", "industry report", "peer-reviewed study", "news analysis"]
        for d, (group, source) in enumerate(zip(groups, sources, strict=True)):
            doc_id = f"{name}-{d + 1}"
            doc_facts = tuple(
                Fact(
                    id=f"{doc_id}-{claim}",
                    claim=f"{name}:{claim}",
                    kind=facts[claim][0],
                    text=facts[claim][1],
                    key=True,
                    correct=True,
                    supports=f"{name}:{facts[claim][2]}" if facts[claim][2] else None,
                )
                for claim in group
            )
            title = spec["titles"][d]
            documents.append(
                Document(
                    doc_id, name, title, source, True, True, " ".join(f.text for f in doc_facts), doc_facts
                )
            )
        wrong_id = f"{name}-5"
        wrong_facts = tuple(
            Fact(f"{wrong_id}-{claim}", f"{name}:{claim}", facts[claim][0], text, False, False)
            for claim, text in spec["wrong"].items()
        )
        documents.append(
            Document(
                wrong_id,
                name,
                f"What they don't tell you about {spec['keywords'][0]} {spec['keywords'][1]}",
                "forum post",
                False,
                True,
                " ".join(f.text for f in wrong_facts),
                wrong_facts,
            )
        )
        for k, (title, text) in enumerate(spec["decoys"]):
            doc_id = f"{name}-{6 + k}"
            fact = Fact(f"{doc_id}-offtopic", f"{name}:offtopic{k}", "data", text, False, True)
            documents.append(Document(doc_id, name, title, "blog", True, False, text, (fact,)))
    return topics, documents


def write_corpus(out_dir: str | Path) -> dict[str, int]:
    """Write topics.jsonl and documents.jsonl; return how many of each."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    topics, documents = _build()
    with (out_dir / "topics.jsonl").open("w", encoding="utf-8") as handle:
        for topic in topics:
            row = {**topic.__dict__, "keywords": list(topic.keywords)}
            handle.write(json.dumps(row) + "\n")
    with (out_dir / "documents.jsonl").open("w", encoding="utf-8") as handle:
        for doc in documents:
            row = {**doc.__dict__, "facts": [f.__dict__ for f in doc.facts]}
            handle.write(json.dumps(row) + "\n")
    return {"topics": len(topics), "documents": len(documents)}


def _rows(path: Path) -> list[tuple[str, dict]]:
    if not path.is_file():
        raise CorpusError(f"corpus file not found: {path}")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{path}:{number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(row, dict):
            raise CorpusError(f"{path}:{number}: expected a JSON object")
        rows.append((f"{path}:{number}", row))
    return rows


def load_corpus(directory: str | Path | None = None) -> tuple[dict[str, Topic], dict[str, list[Document]]]:
    """Topics by name and their documents (file order) from ``topics.jsonl`` and ``documents.jsonl``.

    Raises `CorpusError` naming the file and line for bad JSON, missing fields, an unknown framework,
    structure or fact kind, or a document of an unknown topic.
    """
    directory = Path(directory) if directory is not None else DEFAULT_CORPUS_DIR
    topics: dict[str, Topic] = {}
    for where, row in _rows(directory / "topics.jsonl"):
        try:
            topic = Topic(
                str(row["topic"]),
                str(row["question"]),
                tuple(row["keywords"]),
                row["framework"],
                row["structure"],
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
        raise CorpusError(f"{directory}: every topic needs documents (none for: {', '.join(empty) or 'any'})")
    return topics, documents


def main(argv: Sequence[str] | None = None) -> None:
    """CLI: write the shipped corpus."""
    parser = argparse.ArgumentParser(description="Write the research-report corpus (JSONL).")
    parser.add_argument("--out", default=str(DEFAULT_CORPUS_DIR))
    args = parser.parse_args(argv)
    print(write_corpus(args.out))


if __name__ == "__main__":
    main()
