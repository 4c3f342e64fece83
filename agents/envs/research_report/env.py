"""ResearchReportEnv: the research-report workflow (docs/design.md#research-report) as a PettingZoo ParallelEnv.

Four agents pass one report along four phases; every step each agent acts, but only the agent whose
phase it is does something (the others' only valid action is ``wait``; ``action_mask`` in every
observation says which actions are valid, invalid ones are ignored):

1. research — ``researcher``: ``pick_source_i`` (one of the topic's shuffled search results) or
   ``enough``; after ``max_sources`` picks the phase ends by itself.
2. analysis — ``analyst``: ``framework_{pest,swot,timeline}`` (once), ``adopt_fact_i`` (facts of the picked
   sources) or ``done``.
3. writing — ``writer``: ``structure_*``, ``detail_{brief,standard,detailed}`` (each once per draft) or ``submit``: the writer
   composes the report from the adopted facts by template (or with a local causal LM: ``writer_model``)
   and, after a send-back, fixes the issues the reviewer flagged.
4. review — ``reviewer``: ``flag_{fact_error,logic_gap,redundancy}``, ``send_back`` (at most twice) or
   ``accept`` (ends).

Rewards (per agent; docs/design.md#research-report): the judge's weighted score (accuracy, depth, structure,
readability) × ``final_weight`` to every agent at accept; shaping to the agent that earned it:
+0.1 researcher per relevant reliable source, +0.05 analyst per adopted correct fact that appears in a
submitted draft, +0.02 writer per paragraph not flagged in a review round, +0.05 reviewer per flag that led to a
fix (−``false_flag_penalty`` per flag of an absent issue), −``step_cost`` per step, and −1.0 to everyone
when ``max_steps`` pass without acceptance (truncation). ``info["team_reward"]`` is the sum over agents.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agents import places
from agents.envs.params import check_known_params, describe_params
from agents.envs.research_report import views
from agents.envs.research_report.corpus import (
    FRAMEWORKS,
    SPLITS,
    STRUCTURES,
    CorpusError,
    Document,
    Fact,
    load_corpus,
)
from agents.envs.research_report.judge import (
    DEFAULT_WEIGHTS,
    DETAILS,
    ISSUES,
    Report,
    compose,
    judge,
    paragraph_issues,
    report_issues,
)
from agents.envs.research_report.views import (
    FEATURE_SIZES,
    MAX_DOCS,
    MAX_FACTS,
    PADDING,
    PHASES,
    SOURCE_TYPES,
    STATE_SIZE,
    TEXT_LIMIT,
)
from agents.errors import SpecError

AGENTS: tuple[str, ...] = ("researcher", "analyst", "writer", "reviewer")
PHASE_AGENT = dict(zip(PHASES, AGENTS, strict=False))
MAX_SEND_BACKS = 2
__all__ = ["FEATURE_SIZES", "MAX_DOCS", "PADDING", "SOURCE_TYPES", "STATE_SIZE", "ResearchReportEnv"]
ROLE_ACTIONS: dict[str, tuple[str, ...]] = {
    "researcher": ("wait", "enough", *(f"pick_source_{i}" for i in range(MAX_DOCS))),
    "analyst": (
        "wait",
        "done",
        *(f"framework_{f}" for f in FRAMEWORKS),
        *(f"adopt_fact_{i}" for i in range(MAX_FACTS)),
    ),
    "writer": ("wait", "submit", *(f"structure_{s}" for s in STRUCTURES), *(f"detail_{d}" for d in DETAILS)),
    "reviewer": ("wait", "accept", "send_back", *(f"flag_{issue}" for issue in ISSUES)),
}
"""Action names per agent; an agent's action is the index into its tuple (0 = wait)."""


def action_name(agent: str, actions: Mapping[str, Any]) -> str:
    """The name of ``agent``'s action in ``actions`` (0 when absent); a clear error when out of range."""
    index = int(actions.get(agent, 0))
    names = ROLE_ACTIONS[agent]
    if not 0 <= index < len(names):
        raise ValueError(f"{agent}: action {index} is out of range 0..{len(names) - 1} ({', '.join(names)})")
    return names[index]


DEFAULTS: dict[str, Any] = {
    "corpus": None,
    "topics": None,
    "split": "all",
    "max_steps": 32,
    "max_sources": 5,
    "step_cost": 0.0,
    "final_weight": 1.0,
    "false_flag_penalty": 0.02,
    "timeout_penalty": 1.0,
    "writer_model": None,
    "shuffle": True,
}
"""Environment parameters (the spec's ``environment.params``) and their defaults."""
PARAMETERS = describe_params(
    DEFAULTS,
    {
        "corpus": "A directory with topics.jsonl and documents.jsonl; empty = the shipped corpus.",
        "topics": "Topic names to draw from, comma-separated; empty = every topic (of the split).",
        "split": "Which topics: train, test or all (the corpus marks each topic train or test).",
        "max_steps": "Steps the team gets per report before it times out.",
        "max_sources": "Sources the researcher may pick before the research phase ends by itself.",
        "step_cost": "Cost of every step.",
        "final_weight": "Weight of the judge's score paid to every agent when the report is accepted.",
        "false_flag_penalty": "The reviewer's penalty for each flag of an issue the draft does not have.",
        "timeout_penalty": "Penalty to everyone when the steps run out without acceptance.",
        "writer_model": "A local causal-LM directory the writer composes with; empty = template writing.",
        "shuffle": "Draw topics at random (off: in order).",
    },
    choices={"split": ("all", *SPLITS)},
    kinds={"topics": "list"},
)
"""The parameters as the designer's Environment tab shows them."""



class ResearchReportEnv(ParallelEnv):
    """Researcher, analyst, writer and reviewer produce a report judged on four dimensions."""

    parameters = PARAMETERS
    unread_fields: tuple[str, ...] = ("text",)
    """Observation fields a learned reader skips: the free-text view restates ``features`` and changes
    every step, so embedding it would cost a backbone call per agent and step."""
    metadata = {"name": "research_report_v0", "render_modes": ["ansi", "human"], "is_parallelizable": True}

    def __init__(
        self,
        corpus: str | Path | None = None,
        topics: list[str] | None = None,
        split: str = "all",
        max_steps: int = 32,
        max_sources: int = 5,
        step_cost: float = 0.0,
        final_weight: float = 1.0,
        false_flag_penalty: float = 0.02,
        timeout_penalty: float = 1.0,
        writer_model: str | None = None,
        shuffle: bool = True,
        render_mode: str | None = None,
    ) -> None:
        """Build the env over the shipped corpus (or a directory with topics.jsonl/documents.jsonl)."""
        params = {k: v for k, v in locals().items() if k in DEFAULTS}
        errors = self.validate_params(params)
        if errors:
            raise ValueError(f"research_report: {errors[0].path}: {errors[0].message}")
        self.topics, self.documents = load_corpus(corpus)
        self.split = split
        in_split = [t for t in self.topics if split == "all" or self.topics[t].split == split]
        self.topic_names = list(topics) if topics else in_split
        if not self.topic_names:
            raise CorpusError(f"research_report: the corpus has no {split} topics")
        unknown = [t for t in self.topic_names if t not in self.topics]
        if unknown:
            raise CorpusError(
                f"research_report: unknown topic {unknown[0]!r}; known: {', '.join(self.topics)}"
            )
        self.max_steps, self.max_sources = int(max_steps), int(max_sources)
        self.step_cost, self.final_weight = float(step_cost), float(final_weight)
        self.false_flag_penalty, self.timeout_penalty = float(false_flag_penalty), float(timeout_penalty)
        self.shuffle = bool(shuffle)
        self.render_mode = render_mode
        self._rewrite = _load_writer(writer_model) if writer_model else None
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        chars = set(string.printable)
        for docs in self.documents.values():
            for doc in docs:
                chars |= set(doc.title) | set(doc.text)
        self._charset = "".join(sorted(chars))
        self._rng = np.random.default_rng()
        self._cursor = 0
        self._start(self.topic_names[0])

    # ---------------------------------------------------------------------------------------- spec hook

    @staticmethod
    def expected_agents(params: Mapping[str, Any] | None = None) -> list[str]:
        """The fixed agent names."""
        return list(AGENTS)

    @staticmethod
    def validate_params(params: Mapping[str, Any]) -> list[SpecError]:
        """Every problem with ``environment.params``, paths rooted at params (never raises)."""
        errors, merged = check_known_params(params, DEFAULTS)
        if not isinstance(params, Mapping):
            return errors
        corpus = merged["corpus"]
        if corpus is not None:
            if not isinstance(corpus, str | Path) or not (Path(corpus) / "topics.jsonl").is_file():
                errors.append(
                    SpecError("$.corpus", "must be a directory holding topics.jsonl and documents.jsonl")
                )
        if merged["split"] not in ("all", *SPLITS):
            errors.append(SpecError("$.split", f"must be one of all, {', '.join(SPLITS)}"))
        topics = merged["topics"]
        if topics is not None and (
            not isinstance(topics, list) or not topics or not all(isinstance(t, str) for t in topics)
        ):
            errors.append(SpecError("$.topics", "must be a non-empty list of topic names (or null for all)"))
        elif topics is not None and corpus is None:
            known = _shipped_topic_names()
            for topic in topics:
                if topic not in known:
                    errors.append(
                        SpecError("$.topics", f"unknown topic {topic!r}; known: {', '.join(sorted(known))}")
                    )
        for key, low, high in (("max_steps", 8, 500), ("max_sources", 1, MAX_DOCS)):
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                errors.append(SpecError(f"$.{key}", f"must be an integer between {low} and {high}"))
        for key in ("step_cost", "final_weight", "false_flag_penalty", "timeout_penalty"):
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 100:
                errors.append(SpecError(f"$.{key}", "must be a number between 0 and 100"))
        model = merged["writer_model"]
        if model is not None and (not isinstance(model, str) or not places.model_path(model).is_dir()):
            errors.append(
                SpecError("$.writer_model", "must be a local Hugging Face causal-LM directory (or null)")
            )
        if not isinstance(merged["shuffle"], bool):
            errors.append(SpecError("$.shuffle", "must be true or false"))
        return errors

    # ------------------------------------------------------------------------------------------ spaces

    @functools.cache  # noqa: B019 - PettingZoo requires the same space object each call
    def observation_space(self, agent: str) -> spaces.Dict:
        """Dict space: the agent's text view, the question, its structured view, the phase, the action mask."""
        return spaces.Dict(
            {
                "text": spaces.Text(max_length=TEXT_LIMIT, min_length=1, charset=self._charset),
                "question": spaces.Text(max_length=TEXT_LIMIT, min_length=1, charset=self._charset),
                "features": spaces.Box(0.0, 1.0, shape=(FEATURE_SIZES[agent],), dtype=np.float32),
                "phase": spaces.Discrete(len(PHASES)),
                "action_mask": spaces.Box(0, 1, shape=(len(ROLE_ACTIONS[agent]),), dtype=np.int8),
            }
        )

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        """Discrete over `ROLE_ACTIONS[agent]`."""
        return spaces.Discrete(len(ROLE_ACTIONS[agent]))

    @functools.cached_property
    def state_space(self) -> spaces.Dict:
        """Global state: a text summary and a float vector (see `state`)."""
        return spaces.Dict(
            {
                "text": spaces.Text(max_length=TEXT_LIMIT, min_length=1, charset=self._charset),
                "vector": spaces.Box(0.0, 1.0, shape=(STATE_SIZE,), dtype=np.float32),
            }
        )

    # --------------------------------------------------------------------------------------- episodes

    def _start(self, topic: str) -> None:
        self.topic = self.topics[topic]
        docs = list(self.documents[topic])[:MAX_DOCS]
        order = self._rng.permutation(len(docs)) if self.shuffle else np.arange(len(docs))
        self.results: list[Document] = [docs[i] for i in order]
        self.key_claims = sorted(
            {f.claim for d in self.documents[topic] for f in d.facts if f.key and f.correct}
        )
        self.phase = "research"
        self.picked: list[Document] = []
        self.adopted: list[Fact] = []
        self.framework: str | None = None
        self.structure: str = STRUCTURES[0]
        self.detail: str = "standard"
        self.chosen: set[str] = set()
        self.draft: Report | None = None
        self.flags: set[str] = set()
        self.pending_fixes: set[str] = set()
        self.credited_facts: set[str] = set()
        self.step_count = 0
        self.phase_start = 0
        self.send_backs = 0
        self.scores: dict[str, float] = {}
        self.log: list[str] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start a report; ``options={"topic": name}`` picks the topic (else random or in order)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._cursor = 0
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)
        options = options or {}
        if options.get("topic") is not None:
            if options["topic"] not in self.topics:
                raise CorpusError(f"unknown topic {options['topic']!r}; known: {', '.join(self.topics)}")
            topic = options["topic"]
        elif self.shuffle:
            topic = self.topic_names[int(self._rng.integers(len(self.topic_names)))]
        else:
            topic = self.topic_names[self._cursor % len(self.topic_names)]
            self._cursor += 1
        self._start(topic)
        self.agents = list(self.possible_agents)
        info = self._info(dict.fromkeys(AGENTS, 0.0))
        return self._observations(), {agent: dict(info) for agent in self.agents}

    @property
    def fact_pool(self) -> list[Fact]:
        """Facts of the picked sources, in slot order (what the analyst can adopt)."""
        return [fact for doc in self.picked for fact in doc.facts][:MAX_FACTS]

    def action_mask(self, agent: str) -> np.ndarray:
        """Which of ``agent``'s actions are valid now (wait is valid only when it is not its turn)."""
        names = ROLE_ACTIONS[agent]
        mask = np.zeros(len(names), dtype=np.int8)
        if self.phase == "done" or PHASE_AGENT[self.phase] != agent:
            mask[0] = 1
            return mask
        for i, name in enumerate(names):
            mask[i] = self._valid(agent, name)
        return mask

    def _valid(self, agent: str, name: str) -> bool:
        if name == "wait":
            return False
        if agent == "researcher" and name.startswith("pick_source_"):
            slot = int(name.rsplit("_", 1)[1])
            return slot < len(self.results) and self.results[slot] not in self.picked
        if agent == "analyst" and name.startswith("adopt_fact_"):
            slot = int(name.rsplit("_", 1)[1])
            return slot < len(self.fact_pool) and self.fact_pool[slot] not in self.adopted
        if agent == "reviewer" and name.startswith("flag_"):
            return name[5:] not in self.flags
        # a choice is made once (per draft for the writer), and a report is sent back at most
        # MAX_SEND_BACKS times: every episode ends, whatever a (greedy) policy repeats
        if name.startswith("framework_"):
            return self.framework is None
        if name.startswith(("structure_", "detail_")):
            return name.split("_", 1)[0] not in self.chosen
        if name == "send_back":
            return self.send_backs < MAX_SEND_BACKS
        return True

    def step(self, actions: Mapping[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the phase agent's action (others wait), advance the workflow, hand out rewards."""
        if not self.agents:
            return {}, {}, {}, {}, {}
        self.step_count += 1
        rewards = dict.fromkeys(AGENTS, -self.step_cost)
        actor = PHASE_AGENT[self.phase]
        name = action_name(actor, actions)
        phase = self.phase
        if self._valid(actor, name):
            getattr(self, f"_act_{actor}")(name, rewards)
        else:
            self.log.append(f"{actor}: invalid {name}, ignored")
        if self.phase != phase:
            self.phase_start = self.step_count
        terminated = self.phase == "done"
        truncated = not terminated and self.step_count >= self.max_steps
        if truncated:
            for agent in AGENTS:
                rewards[agent] -= self.timeout_penalty
        observations = self._observations()
        info = self._info(rewards)
        live = list(self.agents)
        if terminated or truncated:
            self.agents = []
        return (
            observations,
            {agent: float(rewards[agent]) for agent in live},
            dict.fromkeys(live, terminated),
            dict.fromkeys(live, truncated),
            {agent: dict(info) for agent in live},
        )

    # ---------------------------------------------------------------------------------- role actions

    def _act_researcher(self, name: str, rewards: dict[str, float]) -> None:
        if name == "enough":
            self.phase = "analysis"
        else:
            doc = self.results[int(name.rsplit("_", 1)[1])]
            self.picked.append(doc)
            if doc.relevant and doc.reliable:
                rewards["researcher"] += 0.1
            if len(self.picked) >= self.max_sources:
                self.phase = "analysis"
        self.log.append(f"researcher: {name}")

    def _act_analyst(self, name: str, rewards: dict[str, float]) -> None:
        if name == "done":
            self.phase = "writing"
        elif name.startswith("framework_"):
            self.framework = name[len("framework_") :]
        else:
            self.adopted.append(self.fact_pool[int(name.rsplit("_", 1)[1])])
        self.log.append(f"analyst: {name}")

    def _act_writer(self, name: str, rewards: dict[str, float]) -> None:
        self.log.append(f"writer: {name}")
        if name.startswith("structure_"):
            self.structure = name[len("structure_") :]
            self.chosen.add("structure")
            return
        if name.startswith("detail_"):
            self.detail = name[len("detail_") :]
            self.chosen.add("detail")
            return
        self.chosen.clear()
        facts = list(self.adopted)
        fixed = set()
        if self.draft is not None:
            present = report_issues(self.draft)
            for issue in self.pending_fixes & present:
                facts = self._fix(issue, facts)
                fixed.add(issue)
        self.draft = compose(self.topic, facts, self.framework, self.structure, self.detail, self._rewrite)
        fixed -= report_issues(self.draft)  # a fix only counts when the issue is gone
        rewards["reviewer"] += 0.05 * len(fixed)
        stated = {fact.id for fact in self.draft.facts}
        new = [
            fact
            for fact in self.adopted
            if fact.correct and fact.id in stated and fact.id not in self.credited_facts
        ]
        rewards["analyst"] += 0.05 * len(new)
        self.credited_facts |= {fact.id for fact in new}
        self.pending_fixes = set()
        self.flags = set()
        self.phase = "review"

    def _fix(self, issue: str, facts: list[Fact]) -> list[Fact]:
        """How the writer revises after a flag: drop wrong facts, add or drop support, deduplicate."""
        if issue == "fact_error":
            return [fact for fact in facts if fact.correct]
        if issue == "redundancy":
            if self.detail == "detailed":
                self.detail = "standard"
            seen, unique = set(), []
            for fact in facts:
                if fact.claim not in seen:
                    seen.add(fact.claim)
                    unique.append(fact)
            return unique
        claims = {fact.claim for fact in facts}
        revised = list(facts)
        for fact in facts:
            if fact.kind == "argument" and fact.supports and fact.supports not in claims:
                support = next((f for f in self.fact_pool if f.claim == fact.supports and f.correct), None)
                if support is not None:
                    revised.append(support)
                    claims.add(support.claim)
                else:
                    revised.remove(fact)
        return revised

    def _act_reviewer(self, name: str, rewards: dict[str, float]) -> None:
        self.log.append(f"reviewer: {name}")
        assert self.draft is not None
        if name.startswith("flag_"):
            issue = name[len("flag_") :]
            self.flags.add(issue)
            if issue not in report_issues(self.draft):
                rewards["reviewer"] -= self.false_flag_penalty
            return
        unflagged = sum(
            1 for p in self.draft.paragraphs if p.facts and not paragraph_issues(p, self.draft) & self.flags
        )
        rewards["writer"] += 0.02 * unflagged
        if name == "send_back":
            self.pending_fixes = set(self.flags)
            self.send_backs += 1
            self.phase = "writing"
            return
        self.scores = judge(self.draft, self.topic, self.key_claims, DEFAULT_WEIGHTS)
        for agent in AGENTS:
            rewards[agent] += self.final_weight * self.scores["score"]
        self.phase = "done"

    # ------------------------------------------------------------------------------------ observations

    def _view(self, agent: str) -> str:
        return views.view(self, agent)

    def _source(self, fact: Fact) -> Document:
        return views.source_of(self, fact)

    def features(self, agent: str) -> np.ndarray:
        """The agent's structured view (`views.features`: numbers for what its text view shows)."""
        return views.features(self, agent)

    def _observations(self) -> dict[str, dict]:
        phase = PHASES.index(self.phase)
        return {
            agent: {
                "text": self._view(agent),
                "question": self.topic.question,
                "features": self.features(agent),
                "phase": phase,
                "action_mask": self.action_mask(agent),
            }
            for agent in self.agents
        }

    def state(self) -> dict[str, Any]:
        """Global state for a centralised critic (`views.state`)."""
        return views.state(self)

    def _info(self, rewards: Mapping[str, float]) -> dict[str, Any]:
        return {
            "topic": self.topic.topic,
            "phase": self.phase,
            "steps": self.step_count,
            "send_backs": self.send_backs,
            "sources": [doc.id for doc in self.picked],
            "adopted_facts": [fact.id for fact in self.adopted],
            "issues": sorted(report_issues(self.draft)) if self.draft else [],
            "scores": dict(self.scores),
            "accepted": self.phase == "done",
            # the judge's score of an accepted report: what a trainer's validation keeps the best checkpoint by
            "success": float(self.scores.get("score", 0.0)) if self.phase == "done" else 0.0,
            "team_reward": float(sum(rewards.values())),
            "last": self.log[-1] if self.log else "start",
        }

    def render(self) -> str | None:
        """Text view of the workflow and the draft."""
        text = self.state()["text"] + f"\n[{self.phase}] " + (self.log[-1] if self.log else "start")
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


def _shipped_topic_names() -> set[str]:
    """Topic names of the shipped corpus (empty when it is missing or unreadable)."""
    try:
        return set(load_corpus()[0])
    except CorpusError:
        return set()


def _load_writer(model_dir: str) -> Callable[[str], str]:
    """A paragraph rewriter on a local causal LM (greedy, short); the writer backbone when configured."""
    model_dir = str(places.model_path(model_dir))
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(model_dir, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(model_dir, local_files_only=True).eval()
    except (OSError, ValueError) as exc:
        raise ValueError(
            f"research_report: writer_model {model_dir!r} is not a loadable causal LM ({exc})"
        ) from None

    def rewrite(text: str) -> str:
        prompt = f"Rewrite as one clear report paragraph: {text}\nParagraph:"
        inputs = tokenizer(prompt, return_tensors="pt")
        with torch.no_grad():
            output = model.generate(
                **inputs, max_new_tokens=48, do_sample=False, pad_token_id=tokenizer.eos_token_id or 0
            )
        generated = tokenizer.decode(output[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True)
        generated = " ".join("".join(c for c in generated if c in string.printable).split())
        return f"{text} {generated}".strip() if generated else text

    return rewrite
