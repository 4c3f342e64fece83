"""What each research-report agent observes: its text view, its structured view (`features`) and the
critic's global state. Every number stands for something the agent's text view shows; no hidden truth
(which source is reliable, which fact is correct) is ever observed — only the cues a reader has: the
topic's domain, each result's source type and title, each fact's kind and source, the draft."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.envs.research_report.corpus import DOMAINS, FACT_KINDS, FRAMEWORKS, STRUCTURES, Document, Fact
from agents.envs.research_report.judge import DETAILS, ISSUES, report_issues

if TYPE_CHECKING:
    from agents.envs.research_report.env import ResearchReportEnv

PHASES: tuple[str, ...] = ("research", "analysis", "writing", "review", "done")
MAX_DOCS = 8
MAX_FACTS = 12
TEXT_LIMIT = 3000
SOURCE_TYPES: tuple[str, ...] = (
    "statistics office",
    "industry report",
    "peer-reviewed study",
    "news analysis",
    "forum post",
    "blog",
)
PADDING = "This point deserves attention"
"""The filler sentence a detailed report pads with (visible to the reviewer in the draft)."""
HEAD = 3 + len(DOMAINS)
"""Every agent's features start with step, steps in this phase, send-backs and the domain one-hot."""
FEATURE_SIZES: dict[str, int] = {
    "researcher": HEAD + MAX_DOCS * (3 + len(SOURCE_TYPES)),
    "analyst": HEAD + len(FRAMEWORKS) + 1 + MAX_FACTS * (3 + len(SOURCE_TYPES) + len(FACT_KINDS)),
    "writer": HEAD + len(STRUCTURES) + len(DETAILS) + len(ISSUES) + 1,
    "reviewer": HEAD + len(ISSUES) + len(SOURCE_TYPES) + 2,
}
"""Length of each agent's ``features`` observation (see `features`)."""
STATE_SIZE = (
    len(PHASES) + len(DOMAINS) + 4 + len(FRAMEWORKS) + len(STRUCTURES) + len(DETAILS) + 2 * len(ISSUES) + 1
)
QUESTION_STOPWORDS = {"the", "and", "what", "how", "does", "are", "which", "where"}


def words(text: str) -> set[str]:
    """Content words of a text (lower case, three letters or more)."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2} - QUESTION_STOPWORDS


def source_of(env: ResearchReportEnv, fact: Fact) -> Document:
    """The document of the current topic that states ``fact``."""
    return next(doc for doc in env.documents[env.topic.topic] if fact in doc.facts)


def view(env: ResearchReportEnv, agent: str) -> str:
    """The agent's text view."""
    head = (
        f"Topic: {env.topic.question}\nDomain: {env.topic.domain}. "
        f"Phase: {env.phase}; step {env.step_count}/{env.max_steps}."
    )
    if agent == "researcher":
        lines = [
            f"[{i}] {doc.title} ({doc.source}){' - picked' if doc in env.picked else ''}"
            for i, doc in enumerate(env.results)
        ]
        body = "Search results:\n" + "\n".join(lines)
    elif agent == "analyst":
        lines = [
            f"[{i}] ({fact.kind}) {fact.text} - {source_of(env, fact).source}"
            f"{' - adopted' if fact in env.adopted else ''}"
            for i, fact in enumerate(env.fact_pool)
        ]
        body = f"Framework: {env.framework or 'none'}. Facts from picked sources:\n" + "\n".join(lines)
    elif agent == "writer":
        lines = [f"- ({fact.kind}) {fact.text}" for fact in env.adopted]
        flags = ", ".join(sorted(env.pending_fixes)) or "none"
        body = (
            f"Framework: {env.framework or 'none'}; structure {env.structure}; detail {env.detail}; "
            f"reviewer flags to fix: {flags}.\nAnalyst's facts:\n" + "\n".join(lines)
        )
    else:
        sources = sorted({source_of(env, f).source for f in env.draft.facts}) if env.draft else []
        body = (
            f"Flags so far: {', '.join(sorted(env.flags)) or 'none'}; sent back {env.send_backs}x; "
            f"sources cited: {', '.join(sources) or 'none'}.\n"
            f"Draft:\n{env.draft.text if env.draft else '(no draft yet)'}"
        )
    return (head + "\n" + body)[:TEXT_LIMIT]


def features(env: ResearchReportEnv, agent: str) -> np.ndarray:
    """The agent's structured view: numbers for what its text view shows (no hidden ground truth).

    Every agent: step/max_steps, steps spent in this phase (/8), send-backs (/3), the topic's domain
    one-hot. Then researcher: per search-result slot — present, picked, title shares a word with the
    question, source type one-hot; analyst: framework one-hot (+ none), per fact slot — present,
    adopted, repeats an adopted sentence, source type one-hot, kind one-hot; writer: structure, detail,
    flags to fix, a draft exists; reviewer: flags so far, the source types the draft cites, whether it
    repeats a sentence, whether it pads.
    """
    out = [
        min(1.0, env.step_count / env.max_steps),
        min(1.0, (env.step_count - env.phase_start) / 8),
        min(1.0, env.send_backs / 3),
    ]
    out += [float(env.topic.domain == d) for d in DOMAINS]
    if agent == "researcher":
        question = words(env.topic.question)
        for i in range(MAX_DOCS):
            doc = env.results[i] if i < len(env.results) else None
            out += [float(doc is not None), float(doc in env.picked)]
            out.append(float(doc is not None and bool(words(doc.title) & question)))
            out += [float(doc is not None and doc.source == t) for t in SOURCE_TYPES]
    elif agent == "analyst":
        out += [float(env.framework == f) for f in FRAMEWORKS] + [float(env.framework is None)]
        pool, adopted_texts = env.fact_pool, {fact.text for fact in env.adopted}
        for i in range(MAX_FACTS):
            fact = pool[i] if i < len(pool) else None
            source = source_of(env, fact).source if fact is not None else None
            out += [float(fact is not None), float(fact in env.adopted)]
            out.append(float(fact is not None and fact not in env.adopted and fact.text in adopted_texts))
            out += [float(source == t) for t in SOURCE_TYPES]
            out += [float(fact is not None and fact.kind == k) for k in FACT_KINDS]
    elif agent == "writer":
        out += [float(env.structure == x) for x in STRUCTURES] + [float(env.detail == d) for d in DETAILS]
        out += [float(i in env.pending_fixes) for i in ISSUES] + [float(env.draft is not None)]
    else:
        cited = {source_of(env, f).source for f in env.draft.facts} if env.draft else set()
        text = env.draft.text if env.draft else ""
        sentences = [x.strip() for x in text.split(". ") if x.strip() and not x.startswith("##")]
        out += [float(i in env.flags) for i in ISSUES]
        out += [float(t in cited) for t in SOURCE_TYPES]
        out += [float(len(sentences) != len(set(sentences))), float(PADDING in text)]
    return np.array(out, dtype=np.float32)


def state(env: ResearchReportEnv) -> dict[str, Any]:
    """Global state for a centralised critic.

    ``vector`` = phase one-hot (5) ‖ domain one-hot (5) ‖ picked/MAX_DOCS, relevant reliable picked/4,
    adopted/MAX_FACTS, key claims covered (correct) share ‖ framework (3) ‖ structure (3) ‖ detail (3) ‖
    issues in the draft (3) ‖ flags raised (3) ‖ step/max_steps. ``text`` = the question and the draft.
    """
    good = sum(doc.relevant and doc.reliable for doc in env.picked)
    covered = {f.claim for f in env.adopted if f.correct} & set(env.key_claims)
    issues = report_issues(env.draft) if env.draft else set()
    vector = [float(p == env.phase) for p in PHASES] + [float(env.topic.domain == d) for d in DOMAINS]
    vector += [
        len(env.picked) / MAX_DOCS,
        min(1.0, good / 4),
        len(env.adopted) / MAX_FACTS,
        len(covered) / max(1, len(env.key_claims)),
    ]
    vector += [float(f == env.framework) for f in FRAMEWORKS]
    vector += [float(s == env.structure) for s in STRUCTURES]
    vector += [float(d == env.detail) for d in DETAILS]
    vector += [float(i in issues) for i in ISSUES] + [float(i in env.flags) for i in ISSUES]
    vector.append(min(1.0, env.step_count / env.max_steps))
    text = f"Topic: {env.topic.question}\n" + (env.draft.text if env.draft else "(no draft yet)")
    return {"text": text[:TEXT_LIMIT], "vector": np.array(vector, dtype=np.float32)}
