"""Write the research-report corpus (topics.jsonl, documents.jsonl) from topics_content.py, deterministically.

    python data/research_report/generate.py [--out DIR]

40 topics in five domains (energy, health, technology, economy, environment), eight per domain; the last
two of each domain are the TEST topics (10), the others TRAIN (30). Every topic gets eight search results:

- three core sources carrying its six key facts, and a fourth that restates two of them (copying both
  is redundancy) — reliable and on-topic;
- a forum post whose figures contradict the key facts (unreliable, and visibly a forum post);
- an on-topic source whose type is reputable in general but is the domain's unreliable kind (`INTERESTED`:
  every reputable type is unreliable in some domain and reliable in others), whose figures are wrong;
- two off-topic decoys: one sharing a keyword with the topic, one another topic's source.

Which source types are trustworthy depends on the domain (technology and environment also publish core
findings in practitioners' and field researchers' blogs), and the only cues an agent gets are the
domain and each result's source type: a fixed source-type ranking cannot know it, a team can learn it
from the training topics and carry it over to the test topics of the same domains.

The framework (SWOT for market / growth / supply questions, PEST otherwise) and the report structure
(problem–solution for measures / risks / what holds back, executive summary for market / supply
questions, classic otherwise) follow the question's wording.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from topics_content import DOMAINS  # noqa: E402

TEST_PER_DOMAIN = 2
INTERESTED = {
    "energy": "industry report",
    "health": "news analysis",
    "technology": "peer-reviewed study",
    "economy": "statistics office",
    "environment": "industry report",
}
"""The source type that is unreliable in each domain (and reliable in others): lobby-funded industry
reports in energy, hype-prone news analyses in health, peer-reviewed studies whose figures a fast field
has overtaken in technology, flash estimates of statistics offices (later revised) in economy,
consultancy reports in environment."""
TRUSTED = {
    "energy": ("statistics office", "peer-reviewed study", "news analysis"),
    "health": ("peer-reviewed study", "statistics office", "industry report"),
    "technology": ("blog", "industry report", "news analysis", "statistics office"),
    "economy": ("industry report", "peer-reviewed study", "news analysis"),
    "environment": ("peer-reviewed study", "blog", "statistics office", "news analysis"),
}
"""Source types the reliable core sources of a domain come from (a blog first where blogs are trusted)."""
INTERESTED_TITLES = {
    "industry report": "{Kw} outlook: an industry briefing on {kw2}",
    "news analysis": "Why {kw} {kw2} is about to change everything",
    "peer-reviewed study": "A study of {kw} {kw2}, revisited",
    "statistics office": "Flash estimate: {kw} and {kw2}",
}
KINDS = ("data", "data", "data", "trend", "argument", "argument")
CLAIMS = ("d1", "d2", "d3", "trend", "arg1", "arg2")
NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def framework_for(question: str) -> str:
    return "swot" if re.search(r"market|growing|supply", question.lower()) else "pest"


def structure_for(question: str) -> str:
    q = question.lower()
    if re.search(r"measures|risks|holds? (it )?back", q):
        return "problem_solution"
    return "executive_summary" if re.search(r"market|supply", q) else "classic"


WORDS = (
    ("three quarters", "one third"),
    ("two thirds", "one fifth"),
    ("a quarter", "three quarters"),
    ("half", "a tenth"),
    ("about twice as fast", "no faster"),
    ("one or two", "dozens of"),
    ("four ", "eleven "),
    ("little or no", "a steep"),
    ("Most ", "Few "),
    ("most ", "few "),
    ("fewer", "more"),
    ("Fewer", "More"),
    ("lower", "higher"),
    (" fell", " rose"),
    (" rose", " fell"),
    (" cut ", " raised "),
)
"""Wording a distorted fact flips when it states no figure."""


def distort(text: str, factor: float) -> str | None:
    """The text with its first figure (not a year) scaled by ``factor`` (a share stays under 100%), or
    its first quantity word flipped; None when it has neither."""
    for match in NUMBER.finditer(text):
        raw = match.group(0).rstrip(",")
        value = float(raw.replace(",", ""))
        if "." not in raw and 1900 <= value <= 2100:
            continue  # a year
        new = value * factor
        if text[match.start() + len(raw) : match.start() + len(raw) + 1] == "%" and new >= 95:
            new = value / factor
        if "." in raw:
            shown = f"{new:.1f}"
        else:
            rounded = max(1, round(new))
            if rounded == value:
                rounded += 1
            shown = f"{rounded:,}" if "," in raw else str(rounded)
        return text[: match.start()] + shown + text[match.start() + len(raw) :]
    for before, after in WORDS:
        if before in text:
            return text.replace(before, after, 1)
    return None


def _fact(doc_id: str, topic: str, claim: str, kind: str, text: str, correct: bool, supports=None) -> dict:
    return {
        "id": f"{doc_id}-{claim}",
        "claim": f"{topic}:{claim}",
        "kind": kind,
        "text": text,
        "key": correct,
        "correct": correct,
        "supports": f"{topic}:{supports}" if supports else None,
    }


def _doc(doc_id: str, topic: str, title: str, source: str, reliable: bool, relevant: bool, facts) -> dict:
    return {
        "id": doc_id,
        "topic": topic,
        "title": title,
        "source": source,
        "reliable": reliable,
        "relevant": relevant,
        "text": " ".join(f["text"] for f in facts),
        "facts": list(facts),
    }


def _distorted(doc_id: str, topic: str, claims, facts, order, factor: float) -> list[dict]:
    """Wrong versions of the first two data facts (in ``order``) that `distort` can change."""
    out = []
    for i in order:
        text = distort(facts[i], factor)
        if text and len(out) < 2:
            out.append(_fact(doc_id, topic, claims[i], KINDS[i], text, False))
    if len(out) < 2:
        raise ValueError(f"{topic}: fewer than two data facts with a figure to distort")
    return out


def build() -> tuple[list[dict], list[dict]]:
    """Topic rows and document rows, in file order."""
    topics, documents = [], []
    for domain, specs in DOMAINS.items():
        for index, spec in enumerate(specs):
            name = spec["topic"]
            rng_seed = zlib.crc32(name.encode())
            split = "test" if index >= len(specs) - TEST_PER_DOMAIN else "train"
            question = spec["question"]
            topics.append(
                {
                    "topic": name,
                    "question": question,
                    "keywords": list(spec["keywords"]),
                    "framework": framework_for(question),
                    "structure": structure_for(question),
                    "domain": domain,
                    "split": split,
                }
            )
            claims = spec.get("claims", CLAIMS)
            support_of = spec.get("supports", [1, 2])
            supports = {4: claims[support_of[0]], 5: claims[support_of[1]]}

            trusted = TRUSTED[domain]
            shift = rng_seed % len(trusted)
            types = [trusted[(k + shift) % len(trusted)] for k in range(4)]
            if "blog" in trusted and "blog" not in types[:3]:
                types[rng_seed % 3] = "blog"
            groups = ((0, 1), (2, 3), (4, 5), (1, 5))
            titles = [*spec["titles"], f"In brief: {spec['keywords'][0]} {spec['keywords'][1]} in numbers"]
            for d, (group, source, title) in enumerate(zip(groups, types, titles, strict=True)):
                doc_id = f"{name}-{d + 1}"
                good = [
                    _fact(doc_id, name, claims[i], KINDS[i], spec["facts"][i], True, supports.get(i))
                    for i in group
                ]
                documents.append(_doc(doc_id, name, title, source, True, True, good))
            # the forum post: the first two figures contradicted
            forum_id = f"{name}-5"
            if spec.get("wrong"):
                forum = [
                    _fact(forum_id, name, claims[i], KINDS[i], text, False)
                    for i, text in zip((0, 1), spec["wrong"], strict=True)
                ]
            else:
                forum = _distorted(forum_id, name, claims, spec["facts"], (0, 1, 2), 3.0)
            kw, kw2 = spec["keywords"][0], spec["keywords"][1]
            documents.append(
                _doc(forum_id, name, f"What they don't tell you about {kw} {kw2}", "forum post", False, True, forum)
            )
            # the interested source: a reputable-looking type that this domain cannot trust
            source = INTERESTED[domain]
            trap_id = f"{name}-6"
            factor = 1.8 if rng_seed % 2 else 0.45
            trap = _distorted(trap_id, name, claims, spec["facts"], (0, 2, 1), factor)
            title = INTERESTED_TITLES[source].format(Kw=kw.capitalize(), kw=kw, kw2=kw2)
            documents.append(_doc(trap_id, name, title, source, False, True, trap))
            # decoys: one sharing a keyword, one from the next topic of the domain
            decoy_id = f"{name}-7"
            decoy_title, decoy_text = spec["decoy"]
            decoy_source = ("blog", "news analysis", "industry report")[rng_seed % 3]
            fact = _fact(decoy_id, name, "offtopic0", "data", decoy_text, True)
            fact["key"] = False
            documents.append(_doc(decoy_id, name, decoy_title, decoy_source, True, False, [fact]))
            other = specs[(index + 1) % len(specs)]
            stray_id = f"{name}-8"
            stray = []
            for k, i in enumerate((0, 1)):
                item = _fact(stray_id, name, f"offtopic{k + 1}", KINDS[i], other["facts"][i], True)
                item["key"] = False
                stray.append(item)
            documents.append(_doc(stray_id, name, other["titles"][0], "statistics office", True, False, stray))
    return topics, documents


def write(out_dir: str | Path) -> dict[str, int]:
    """Write topics.jsonl and documents.jsonl under ``out_dir``; counts of what was written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    topics, documents = build()
    (out / "topics.jsonl").write_text("".join(json.dumps(row) + "\n" for row in topics), encoding="utf-8")
    (out / "documents.jsonl").write_text("".join(json.dumps(row) + "\n" for row in documents), encoding="utf-8")
    return {
        "topics": len(topics),
        "train": sum(t["split"] == "train" for t in topics),
        "test": sum(t["split"] == "test" for t in topics),
        "documents": len(documents),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Write the research-report corpus (JSONL).")
    parser.add_argument("--out", default=str(HERE))
    print(write(parser.parse_args(argv).out))


if __name__ == "__main__":
    main()
