"""Rule-scripted agents for ResearchReportEnv: pre-training partners (sim-to-real) and the runtime fallback.

Each rule reads only the agent's own observation (its text and action mask), so it works on randomised
observations too:

- researcher: picks results from reputable source types (not forum posts or blogs), those whose title
  shares words with the question first, up to four, then says ``enough``; several researchers split the
  four in turn order (two: two each), so the report draws on the same sources;
- analyst: SWOT for market / supply questions, PEST otherwise; adopts every fact from a reputable
  source, skipping sentences it has already adopted; then ``done``;
- writer: problem–solution for "measures / risks / holds back" questions, executive summary for
  market / supply questions, classic otherwise; standard detail; ``submit``;
- reviewer: flags a fact error when a source outside those types (a forum post, a blog) is cited and
  redundancy when a sentence repeats or padding appears; sends back once, otherwise accepts (a second
  reviewer applies the same checks to a draft the first one accepted).

The reputable types are a fixed, domain-blind ranking: ``ScriptedResearchTeam(trusted=...)`` takes
another set (bench/template_workflows.py also reports the best fixed set, chosen on the training topics).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

from agents.envs.pipeline import PipelineTeam, ScriptedPipeline
from agents.envs.research_report.env import ResearchReportEnv

REPUTABLE = ("statistics office", "industry report", "peer-reviewed study", "news analysis")
UNTRUSTED = ("forum post", "blog")
PADDING = "This point deserves attention"
SOURCES = 4
"""How many sources the researchers pick in all (several researchers split them, in turn order)."""
STOPWORDS = {
    "the",
    "and",
    "what",
    "how",
    "is",
    "it",
    "are",
    "does",
    "do",
    "to",
    "of",
    "in",
    "a",
    "where",
    "which",
}


def _question(text: str) -> str:
    match = re.search(r"Topic: (.*)", text)
    return match.group(1).lower() if match else ""


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOPWORDS and len(w) > 2}


class ScriptedResearchTeam(ScriptedPipeline):
    """One rule-scripted policy per role of `ResearchReportEnv`, for every agent of the drawn team (``team``,
    ``edges``); ``trusted`` = the source types it relies on (default `REPUTABLE`: a fixed, domain-blind
    ranking of outlets)."""

    env = ResearchReportEnv

    def __init__(
        self,
        trusted: tuple[str, ...] = REPUTABLE,
        team: Sequence[object] | PipelineTeam | None = None,
        edges: Iterable[object] | None = None,
    ):
        super().__init__(team, edges)
        self.trusted = tuple(trusted)

    def _read(self, observation: dict) -> str:
        return str(observation["text"])

    def _researcher(self, text: str, mask: np.ndarray, names: tuple[str, ...]) -> str:
        question = _words(_question(text))
        picked = text.count(" - picked")
        place, of = self.team.position(self.agent) if self.agent in self.team.role_of else (0, 1)
        if picked >= -(-SOURCES * (place + 1) // of):  # its share of the sources (all of them alone)
            return "enough"
        results = re.findall(r"^\[(\d+)\] (.*) \(([^()]*)\)$", text, flags=re.M)
        # reputable sources only; those sharing words with the question first
        results.sort(key=lambda row: not (_words(row[1]) & question))
        for slot, _title, source in results:
            action = f"pick_source_{slot}"
            if source in self.trusted and mask[names.index(action)]:
                return action
        return "enough"

    def _analyst(self, text: str, mask: np.ndarray, names: tuple[str, ...]) -> str:
        question = _question(text)
        if "Framework: none" in text:
            return "framework_swot" if re.search(r"market|growing|supply", question) else "framework_pest"
        sources = "|".join(re.escape(s) for s in (*REPUTABLE, *UNTRUSTED))
        lines = re.findall(rf"^\[(\d+)\] \(\w+\) (.*) - ({sources})( - adopted)?$", text, flags=re.M)
        adopted = {sentence for _, sentence, _, flag in lines if flag}
        for slot, sentence, source, flag in lines:
            action = f"adopt_fact_{slot}"
            if not flag and source in self.trusted and sentence not in adopted and mask[names.index(action)]:
                return action
        return "done"

    def _writer(self, text: str, mask: np.ndarray, names: tuple[str, ...]) -> str:
        question = _question(text)
        if re.search(r"measures|risks|holds? (it )?back", question):
            wanted = "problem_solution"
        elif re.search(r"market|supply", question):
            wanted = "executive_summary"
        else:
            wanted = "classic"
        if f"structure {wanted};" not in text:
            return f"structure_{wanted}"
        if "detail standard;" not in text:
            return "detail_standard"
        return "submit"

    def _reviewer(self, text: str, mask: np.ndarray, names: tuple[str, ...]) -> str:
        if "sent back 0x" not in text:
            return "accept"
        draft = text.split("Draft:", 1)[-1]
        sentences = [
            s.strip() for s in re.split(r"(?<=\.)\s+", draft) if s.strip() and not s.startswith("##")
        ]
        cited = re.search(r"sources cited: (.*)\.", text)
        names_cited = cited.group(1).split(", ") if cited and cited.group(1) != "none" else []
        untrusted = any(source not in self.trusted for source in names_cited)
        if untrusted and mask[names.index("flag_fact_error")]:
            return "flag_fact_error"
        repeated = len(sentences) != len(set(sentences)) or PADDING in draft
        if repeated and mask[names.index("flag_redundancy")]:
            return "flag_redundancy"
        flagged = re.search(r"Flags so far: (?!none)", text)
        return "send_back" if flagged else "accept"
