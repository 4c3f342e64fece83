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

The team comes from the spec (`agents.envs.pipeline`: ``team=`` its agents, ``edges=`` its dependency
edges; without them one agent per role, named after it): one to three researchers, who gather sources in
turn into one shared pool (``enough`` hands over to the next; ``max_sources`` counts the pool; each earns its
own picks' shaping), one analyst, one writer, and one or two reviewers, who look at the same draft in turn
(``accept`` hands over; the last one's accept ends the episode; a send-back returns the draft to the
writer, and a flag that led to a fix pays the reviewer that raised it).
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from agents import places
from agents.envs.params import EnvParams, param
from agents.envs.pipeline import PhasePipelineEnv, PipelineTeam, Role
from agents.envs.research_report import views
from agents.envs.research_report.corpus import (
    CORPUS,
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

MAX_SEND_BACKS = 2
__all__ = ["FEATURE_SIZES", "MAX_DOCS", "PADDING", "ROLES", "SOURCE_TYPES", "STATE_SIZE", "ResearchReportEnv"]
ROLES: tuple[Role, ...] = (
    Role(
        "researcher",
        "research",
        ("wait", "enough", *(f"pick_source_{i}" for i in range(MAX_DOCS))),
        "gather the sources",
        most=3,
    ),
    Role(
        "analyst",
        "analysis",
        (
            "wait",
            "done",
            *(f"framework_{f}" for f in FRAMEWORKS),
            *(f"adopt_fact_{i}" for i in range(MAX_FACTS)),
        ),
        "pick the facts the report states",
    ),
    Role(
        "writer",
        "writing",
        ("wait", "submit", *(f"structure_{s}" for s in STRUCTURES), *(f"detail_{d}" for d in DETAILS)),
        "write the report",
    ),
    Role(
        "reviewer",
        "review",
        ("wait", "accept", "send_back", *(f"flag_{issue}" for issue in ISSUES)),
        "accept or send back the draft",
        most=2,
    ),
)
"""The roles the pipeline needs, in stage order, and how many agents of each a team may hold."""
AGENTS: tuple[str, ...] = tuple(r.name for r in ROLES)
ROLE_ACTIONS: dict[str, tuple[str, ...]] = {r.name: r.actions for r in ROLES}
"""Action names per agent; an agent's action is the index into its tuple (0 = wait)."""


def action_name(agent: str, actions: Mapping[str, Any], names: tuple[str, ...] | None = None) -> str:
    """The name of ``agent``'s action in ``actions`` (0 when absent) among ``names`` (default: the action
    names of the role ``agent`` is named after); a clear error when out of range."""
    index = int(actions.get(agent, 0))
    names = ROLE_ACTIONS[agent] if names is None else names
    if not 0 <= index < len(names):
        raise ValueError(f"{agent}: action {index} is out of range 0..{len(names) - 1} ({', '.join(names)})")
    return names[index]


def _cost(default: float, help: str) -> Any:
    return param(default, help, low=0, high=100)


@dataclass(frozen=True)
class ResearchReportParams(EnvParams):
    """The environment's parameters (the spec's ``environment.params``), each declared once."""

    corpus: str | None = param(
        None,
        "A corpus by name: a directory with topics.jsonl and documents.jsonl in the server's "
        "research_report data directory (on your own machine, a path too); empty = the shipped corpus.",
        data=CORPUS,
    )
    topics: list[str] | None = param(
        None, "Topic names to draw from, comma-separated; empty = every topic (of the split).", kind="list"
    )
    split: str = param(
        "all",
        "Which topics: train, test or all (the corpus marks each topic train or test).",
        choices=("all", *SPLITS),
    )
    max_steps: int = param(32, "Steps the team gets per report before it times out.", low=8, high=500)
    max_sources: int = param(
        5, "Sources the researcher may pick before the research phase ends by itself.", low=1, high=MAX_DOCS
    )
    step_cost: float = _cost(0.0, "Cost of every step.")
    final_weight: float = _cost(
        1.0, "Weight of the judge's score paid to every agent when the report is accepted."
    )
    false_flag_penalty: float = _cost(
        0.02, "The reviewer's penalty for each flag of an issue the draft does not have."
    )
    timeout_penalty: float = _cost(1.0, "Penalty to everyone when the steps run out without acceptance.")
    writer_model: str | None = param(
        None,
        "A local causal-LM the writer composes with, by name in the server's models directory "
        "(on your own machine, a path too); empty = template writing.",
        data=places.MODEL,
    )
    shuffle: bool = param(True, "Draw topics at random (off: in order).")

    @classmethod
    def related_problems(cls, merged: Mapping[str, Any], bad: set[str]) -> list[SpecError]:
        """The corpus, the topics and the writer model must exist."""
        errors = []
        corpus = merged["corpus"]
        if corpus is not None:
            found = places.data_path(corpus, CORPUS) if isinstance(corpus, str | Path) else None
            if found is None or not places.usable(found, CORPUS):
                errors.append(
                    SpecError("$.corpus", "must be a directory holding topics.jsonl and documents.jsonl")
                )
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
        model = merged["writer_model"]
        if model is not None and (not isinstance(model, str) or not places.model_path(model).is_dir()):
            errors.append(
                SpecError("$.writer_model", "must be a local Hugging Face causal-LM directory (or null)")
            )
        return errors


DEFAULTS: dict[str, Any] = ResearchReportParams.defaults()
"""Environment parameters (the spec's ``environment.params``) and their defaults."""
PARAMETERS = ResearchReportParams.describe()
"""The parameters as the designer's Environment tab shows them."""


class ResearchReportEnv(PhasePipelineEnv):
    """Researcher, analyst, writer and reviewer produce a report judged on four dimensions."""

    parameters = PARAMETERS
    roles, label, phases = ROLES, "research report", PHASES
    params_model = ResearchReportParams
    item_option, items_attr, item_error = "topic", "topic_names", CorpusError
    scope_folder = "research_report"  # its scope_dev.jsonl sets the request floor
    unread_fields: tuple[str, ...] = ("text",)
    """Observation fields a learned reader skips: the free-text view restates ``features`` and changes
    every step, so embedding it would cost a backbone call per agent and step."""
    metadata = {"name": "research_report_v0", "render_modes": ["ansi", "human"], "is_parallelizable": True}

    def __init__(
        self,
        *,
        render_mode: str | None = None,
        team: Sequence[Any] | PipelineTeam | None = None,
        edges: Iterable[Any] | None = None,
        **params: Any,
    ) -> None:
        """Build the env over the shipped corpus (or a directory with topics.jsonl/documents.jsonl);
        ``params``: `ResearchReportParams`; ``team``: the spec's agents (None: one agent per role);
        ``edges``: its dependency edges."""
        p = self._configure(params, render_mode, team, edges)
        corpus, topics, split, writer_model = p.corpus, p.topics, p.split, p.writer_model
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
        self._rewrite = _load_writer(writer_model) if writer_model else None
        chars = set(string.printable)
        for docs in self.documents.values():
            for doc in docs:
                chars |= set(doc.title) | set(doc.text)
        self._charset = "".join(sorted(chars))
        self._start(self.topic_names[0])

    # ------------------------------------------------------------------------------------------ spaces

    @functools.cache  # noqa: B019 - PettingZoo requires the same space object each call
    def observation_space(self, agent: str) -> spaces.Dict:
        """Dict space: the agent's text view, the question, its structured view, the phase, the action mask."""
        return spaces.Dict(
            {
                "text": spaces.Text(max_length=TEXT_LIMIT, min_length=1, charset=self._charset),
                "question": spaces.Text(max_length=TEXT_LIMIT, min_length=1, charset=self._charset),
                "features": spaces.Box(
                    0.0, 1.0, shape=(FEATURE_SIZES[self.role_of(agent)],), dtype=np.float32
                ),
                "phase": spaces.Discrete(len(PHASES)),
                "action_mask": self._mask_space(agent),
            }
        )

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
        self._enter("research")
        self.picked: list[Document] = []
        self.adopted: list[Fact] = []
        self.framework: str | None = None
        self.structure: str = STRUCTURES[0]
        self.detail: str = "standard"
        self.chosen: set[str] = set()
        self.draft: Report | None = None
        self.flags: set[str] = set()
        self.flagged_by: dict[str, str] = {}  # issue -> the reviewer that flagged it (this round)
        self.pending_fixes: set[str] = set()
        self.fix_by: dict[str, str] = {}  # issue sent back -> the reviewer that flagged it
        self.credited_facts: set[str] = set()
        self.step_count = 0
        self.phase_start = 0
        self.send_backs = 0
        self.scores: dict[str, float] = {}
        self.log: list[str] = []

    def _pick(self, wanted: str | None) -> str:
        """The report's topic: ``reset(options={"topic": name})`` names any topic of the corpus."""
        if wanted is not None and wanted not in self.topics:
            raise CorpusError(f"unknown topic {wanted!r}; known: {', '.join(self.topics)}")
        return wanted if wanted is not None else super()._pick(None)

    def request_items(self) -> dict[str, str]:
        """Every topic of the corpus (a request may name any, as ``reset`` allows), described by its name,
        question and keywords."""
        return {
            name: f"{name.replace('_', ' ')}: {topic.question} ({', '.join(topic.keywords)})"
            for name, topic in self.topics.items()
        }

    @property
    def fact_pool(self) -> list[Fact]:
        """Facts of the picked sources, in slot order (what the analyst can adopt)."""
        return [fact for doc in self.picked for fact in doc.facts][:MAX_FACTS]

    def _valid(self, name: str) -> bool:
        """Whether the actor's action ``name`` is valid now (every name belongs to one role)."""
        if name == "wait":
            return False
        if name.startswith("pick_source_"):
            slot = int(name.rsplit("_", 1)[1])
            return slot < len(self.results) and self.results[slot] not in self.picked
        if name.startswith("adopt_fact_"):
            slot = int(name.rsplit("_", 1)[1])
            return slot < len(self.fact_pool) and self.fact_pool[slot] not in self.adopted
        if name.startswith("flag_"):
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
        """Apply the actor's action (others wait), advance the workflow, hand out rewards."""
        if not self.agents:
            return {}, {}, {}, {}, {}
        self.step_count += 1
        rewards = dict.fromkeys(self.possible_agents, -self.step_cost)
        actor = self.actor
        assert actor is not None
        name = action_name(actor, actions, self.action_names(actor))
        turn = (self.phase, self.turn)
        if self._valid(name):
            getattr(self, f"_act_{self.role_of(actor)}")(actor, name, rewards)
        else:
            self.log.append(f"{actor}: invalid {name}, ignored")
        if (self.phase, self.turn) != turn:
            self.phase_start = self.step_count
        terminated, truncated = self._ended()
        if truncated:
            for agent in rewards:
                rewards[agent] -= self.timeout_penalty
        return self._emit(rewards, terminated, truncated)

    # ---------------------------------------------------------------------------------- role actions

    def _act_researcher(self, actor: str, name: str, rewards: dict[str, float]) -> None:
        if name == "enough":
            self._hand_over("analysis")  # to the next researcher, or to the analysis
        else:
            doc = self.results[int(name.rsplit("_", 1)[1])]
            self.picked.append(doc)
            if doc.relevant and doc.reliable:
                rewards[actor] += 0.1
            if len(self.picked) >= self.max_sources:  # the shared pool is full
                self._enter("analysis")
        self.log.append(f"{actor}: {name}")

    def _act_analyst(self, actor: str, name: str, rewards: dict[str, float]) -> None:
        if name == "done":
            self._hand_over("writing")
        elif name.startswith("framework_"):
            self.framework = name[len("framework_") :]
        else:
            self.adopted.append(self.fact_pool[int(name.rsplit("_", 1)[1])])
        self.log.append(f"{actor}: {name}")

    def _act_writer(self, actor: str, name: str, rewards: dict[str, float]) -> None:
        self.log.append(f"{actor}: {name}")
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
        for reviewer in self.team.by_role["reviewer"]:  # the reviewer that flagged a fixed issue
            rewards[reviewer] += 0.05 * sum(self.fix_by.get(issue) == reviewer for issue in fixed)
        stated = {fact.id for fact in self.draft.facts}
        new = [
            fact
            for fact in self.adopted
            if fact.correct and fact.id in stated and fact.id not in self.credited_facts
        ]
        rewards[self.team.one("analyst")] += 0.05 * len(new)
        self.credited_facts |= {fact.id for fact in new}
        self.pending_fixes, self.fix_by = set(), {}
        self.flags, self.flagged_by = set(), {}
        self._enter("review")

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

    def _act_reviewer(self, actor: str, name: str, rewards: dict[str, float]) -> None:
        self.log.append(f"{actor}: {name}")
        assert self.draft is not None
        if name.startswith("flag_"):
            issue = name[len("flag_") :]
            self.flags.add(issue)
            self.flagged_by[issue] = actor
            if issue not in report_issues(self.draft):
                rewards[actor] -= self.false_flag_penalty
            return
        if name == "accept" and not self.last_in_stage:  # the next reviewer looks at the draft too
            self._hand_over("done")
            return
        unflagged = sum(
            1 for p in self.draft.paragraphs if p.facts and not paragraph_issues(p, self.draft) & self.flags
        )
        rewards[self.team.one("writer")] += 0.02 * unflagged
        if name == "send_back":
            self.pending_fixes = set(self.flags)
            self.fix_by = dict(self.flagged_by)
            self.send_backs += 1
            self._enter("writing")  # the next review round starts with the first reviewer
            return
        self.scores = judge(self.draft, self.topic, self.key_claims, DEFAULT_WEIGHTS)
        for agent in rewards:
            rewards[agent] += self.final_weight * self.scores["score"]
        self._enter("done")

    # ------------------------------------------------------------------------------------ observations

    def _view(self, agent: str) -> str:
        return views.view(self, self.role_of(agent))

    def features(self, agent: str) -> np.ndarray:
        """The agent's structured view (`views.features`: numbers for what its text view shows)."""
        return views.features(self, self.role_of(agent))

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
            # what a deployed team's writers write from (serving.generation.sections): the last draft's blocks
            "draft": _draft_blocks(self.draft),
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


def _draft_blocks(draft: Report | None) -> dict[str, Any] | None:
    """The draft as plain data: its choices and each paragraph's section and text (None before one)."""
    if draft is None:
        return None
    return {
        "structure": draft.structure,
        "detail": draft.detail,
        "framework": draft.framework,
        "paragraphs": [{"section": p.section, "text": p.text} for p in draft.paragraphs],
    }


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

        from agents.backbone import transformers_classes

        AutoModelForCausalLM, AutoTokenizer = transformers_classes("AutoModelForCausalLM", "AutoTokenizer")

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
