"""CollaborativeWritingEnv: a planner, a writer and a polisher draft a post to a brief, scored by a judge.

A PettingZoo ParallelEnv over data/collaborative_writing (`agents.envs.collaborative_writing.briefs`). Every
step each agent acts, but only the agent whose phase it is does something (the others' only valid action
is ``wait``; ``action_mask`` says which actions are valid):

1. plan — ``planner``: ``pick_section_i`` (one of six candidate sections, shuffled per episode) or
   ``done`` (at least one section picked; at most ``max_sections``).
2. write — ``writer``: ``block_j``, one of the current section's four candidate blocks, section by
   section in the planner's order.
3. polish — ``polisher``: ``fix_tone`` (rewrites blocks in the wrong tone: they keep part of their
   credit), ``cut_redundant`` (drops blocks that restate another section) or ``accept`` (ends); each
   fix costs ``polish_cost``.

Reward: shaping to the acting agent (``shaping`` × `CollaborativeWritingEnv._shaping`: on-brief sections
and blocks, useful polishing), and to every agent the judge's score (coverage, relevance, redundancy, tone,
length; `briefs.judge`) × ``final_weight`` at acceptance, minus the polish costs, −``timeout_penalty`` when
``max_steps`` pass. The spec's communication cost prices the messages the agents send each other.
Observations: numbers for what the agents can read off the brief and the candidates (`briefs.heading_overlap`, a number in the text, tone markers, another
section's aspect, a repeat of a chosen block); never the judge's labels, and not the brief's text: with
a few dozen training briefs its embedding is a key to memorise them by, and the team must write for unseen
briefs (the test split). The brief is in `render`.

The team comes from the spec (`agents.envs.pipeline`: ``team=`` its agents, ``edges=`` its dependency
edges; without them one agent per role): one planner, one writer and one or two polishers, who go over the
same draft in turn (``accept`` hands over; the last one's accept ends the episode).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.envs.collaborative_writing.briefs import (
    BRIEF_FILES,
    SPLITS,
    Block,
    Brief,
    BriefError,
    Section,
    casual,
    heading_overlap,
    jaccard,
    judge,
    load_briefs,
    words,
)
from agents.envs.params import EnvParams, param
from agents.envs.pipeline import PhasePipelineEnv, PipelineTeam, Role, data_file_problem
from agents.envs.pipeline import play as play_items
from agents.errors import SpecError

PHASES: tuple[str, ...] = ("plan", "write", "polish", "done")
SECTIONS, BLOCKS = 6, 4
ROLES: tuple[Role, ...] = (
    Role(
        "planner",
        "plan",
        ("wait", "done", *(f"pick_section_{i}" for i in range(SECTIONS))),
        "plan the sections",
    ),
    Role("writer", "write", ("wait", *(f"block_{j}" for j in range(BLOCKS))), "write the sections"),
    Role(
        "polisher",
        "polish",
        ("wait", "accept", "fix_tone", "cut_redundant"),
        "polish and accept the post",
        most=2,
    ),
)
"""The roles the pipeline needs, in stage order, and how many agents of each a team may hold."""
AGENTS: tuple[str, ...] = tuple(r.name for r in ROLES)
ROLE_ACTIONS: dict[str, tuple[str, ...]] = {r.name: r.actions for r in ROLES}
"""Action names per agent; an agent's action is the index into its tuple (0 = wait)."""


def _cost(default: float, help: str) -> Any:
    return param(default, help, low=0, high=10)


@dataclass(frozen=True)
class CollaborativeWritingParams(EnvParams):
    """The environment's parameters (the spec's ``environment.params``), each declared once."""

    briefs: str | None = param(
        None,
        "A JSONL brief file by name: a shipped one (briefs) or one in the server's collaborative_writing "
        "data directory (on your own machine, a path too); empty = the shipped briefs.",
        data=BRIEF_FILES,
    )
    split: str = param("train", "Which briefs to draw: train, test or all.", choices=SPLITS)
    max_sections: int = param(5, "Most sections the planner may pick.", low=1, high=SECTIONS)
    max_steps: int = param(16, "Steps the team gets per post before it times out.", low=8, high=200)
    polish_cost: float = _cost(0.02, "Cost of each polishing pass.")
    shaping: float = _cost(1.0, "Weight of the per-step shaping rewards (0 = the judge's score alone).")
    final_weight: float = _cost(1.0, "Weight of the judge's score paid to every agent at acceptance.")
    timeout_penalty: float = _cost(1.0, "Penalty when the steps run out without acceptance.")
    shuffle: bool = param(True, "Draw briefs at random (off: in order).")

    @classmethod
    def related_problems(cls, merged: Mapping[str, Any], bad: set[str]) -> list[SpecError]:
        """The brief file must exist."""
        return data_file_problem("briefs", merged["briefs"], BRIEF_FILES)


DEFAULTS: dict[str, Any] = CollaborativeWritingParams.defaults()
PARAMETERS = CollaborativeWritingParams.describe()
BLOCK_CUES = 7
FEATURES = 6 + SECTIONS * 3 + BLOCKS * BLOCK_CUES + 3


class CollaborativeWritingEnv(PhasePipelineEnv):
    """Planner, writer and polisher compose a post from a local pool of sections and blocks."""

    parameters = PARAMETERS
    metadata = {"name": "collaborative_writing_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    roles, label, phases, feature_size = ROLES, "collaborative writing", PHASES, FEATURES
    params_model = CollaborativeWritingParams
    item_option, items_attr, item_error = "brief", "briefs", BriefError  # reset(options={"brief": id})
    scope_folder = "collaborative_writing"  # its scope_dev.jsonl sets the request floor

    def __init__(
        self,
        *,
        render_mode: str | None = None,
        team: Sequence[Any] | PipelineTeam | None = None,
        edges: Iterable[Any] | None = None,
        **params: Any,
    ) -> None:
        """``params``: `CollaborativeWritingParams`; ``team``: the spec's agents (None: one agent per role);
        ``edges``: its dependency edges."""
        p = self._configure(params, render_mode, team, edges)
        self.briefs = load_briefs(p.briefs, p.split)
        self._start(self.briefs[0])

    # ---------------------------------------------------------------------------------------- episodes
    def _describe(self, brief: Brief) -> str:
        return f"{brief.topic}: {brief.text}"

    def _start(self, brief: Brief) -> None:
        self.brief = brief
        self.sections: list[Section] = [brief.sections[int(i)] for i in self._perm(len(brief.sections))][
            :SECTIONS
        ]
        self.block_order = {s.heading: [int(i) for i in self._perm(len(s.blocks))] for s in self.sections}
        self._enter("plan")
        self.picked: list[int] = []  # section slots, in the planner's order
        self.draft: list[tuple[Section, Block, bool]] = []
        self.polished: set[str] = set()
        self.step_count = 0
        self.scores: dict[str, float] = {}
        self.log: list[str] = []

    def _perm(self, n: int) -> np.ndarray:
        return self._rng.permutation(n) if self.shuffle else np.arange(n)

    @property
    def current(self) -> Section | None:
        """The section the writer fills next (None outside the write phase)."""
        if self.phase != "write" or len(self.draft) >= len(self.picked):
            return None
        return self.sections[self.picked[len(self.draft)]]

    def blocks(self) -> list[Block]:
        section = self.current
        return [] if section is None else [section.blocks[i] for i in self.block_order[section.heading]]

    def _valid(self, name: str) -> bool:
        if name == "wait":
            return False
        if name == "done":
            return bool(self.picked)
        if name.startswith("pick_section_"):
            slot = int(name.rsplit("_", 1)[1])
            return (
                slot < len(self.sections) and slot not in self.picked and len(self.picked) < self.max_sections
            )
        if name.startswith("block_"):
            return int(name[6:]) < len(self.blocks())
        if name in ("fix_tone", "cut_redundant"):
            return name not in self.polished
        return True

    def _act(self, name: str) -> float:
        if name.startswith("pick_section_"):
            self.picked.append(int(name.rsplit("_", 1)[1]))
            if len(self.picked) >= self.max_sections:
                self._enter("write")
            return 0.0
        if name == "done":
            self._enter("write")
            return 0.0
        if name.startswith("block_"):
            section = self.current
            assert section is not None
            self.draft.append((section, self.blocks()[int(name[6:])], False))
            if len(self.draft) >= len(self.picked):
                self._enter("polish")
            return 0.0
        if name == "fix_tone":
            self.polished.add(name)
            self.draft = [(s, b, fixed or self._mistoned(b)) for s, b, fixed in self.draft]
            return -self.polish_cost
        if name == "cut_redundant":
            self.polished.add(name)
            self.draft = [row for i, row in enumerate(self.draft) if not self._repeats(row[1], i)]
            return -self.polish_cost
        if not self.last_in_stage:  # accept: the next polisher goes over it too
            self._hand_over("done")
            return 0.0
        self.scores = judge(self.brief, self.draft)
        self._enter("done")
        return self.final_weight * self.scores["score"]

    def _shaping(self, name: str) -> float:
        """The acting agent's shaping for `name`, read off the judge's labels before the action applies:
        planner ±0.05 per on- / off-brief section; writer +0.1 on-brief block, +0.03 wrong tone, −0.05
        restating; polisher +0.05 per pass that changes something it should, −0.05 per idle pass."""
        if name.startswith("pick_section_"):
            return 0.05 if self.sections[int(name.rsplit("_", 1)[1])].on_brief else -0.05
        if name.startswith("block_"):
            kind = self.blocks()[int(name[6:])].kind
            return {"on": 0.1, "wrong_tone": 0.03, "redundant": -0.05}.get(kind, 0.0)
        if name == "fix_tone":
            return 0.05 if any(b.kind == "wrong_tone" and not fixed for _, b, fixed in self.draft) else -0.05
        if name == "cut_redundant":
            hit = any(b.kind == "redundant" and self._repeats(b, i) for i, (_, b, _) in enumerate(self.draft))
            return 0.05 if hit else -0.05
        return 0.0

    # ---------------------------------------------------------------------------------------- cues
    def _mistoned(self, block: Block) -> bool:
        return casual(block.text) != (self.brief.tone == "casual")

    def _other_aspect(self, section: Section, block: Block) -> bool:
        seen = set(words(block.text))
        return any(s.aspect in seen for s in self.sections if s.aspect != section.aspect)

    def _repeats(self, block: Block, upto: int | None = None) -> bool:
        """Whether `block` restates a block already in the draft (before row `upto`) or names another
        section's aspect (what a reader takes for a restatement)."""
        rows = self.draft if upto is None else self.draft[:upto]
        return any(jaccard(block.text, b.text) >= 0.5 for _, b, _ in rows) or any(
            self._other_aspect(s, block) for s, b, _ in self.draft if b is block
        )

    def block_cues(self, section: Section, block: Block) -> list[float]:
        """share of heading words, heading-word density, has a number, wrong tone marker, names another
        section's aspect, restates a drafted block, length (words / 40)."""
        share, density = heading_overlap(section.heading, block.text)
        return [
            share,
            density,
            float(any(c.isdigit() for c in block.text)),
            float(self._mistoned(block)),
            float(self._other_aspect(section, block)),
            float(any(jaccard(block.text, b.text) >= 0.5 for _, b, _ in self.draft)),
            min(1.0, len(block.text.split()) / 40),
        ]

    def features(self) -> np.ndarray:
        """step, brief tone casual, sections wanted (/6), picked (/6), drafted (/6), polished share; per
        section slot: present, picked, share of its heading words in the brief; per block of the current
        section: `block_cues`; the draft: wrong-tone blocks, restating blocks (shares), sections − wanted."""
        brief_words = set(words(self.brief.text))
        out = [
            min(1.0, self.step_count / self.max_steps),
            float(self.brief.tone == "casual"),
            self.brief.sections_wanted / SECTIONS,
            len(self.picked) / SECTIONS,
            len(self.draft) / SECTIONS,
            len(self.polished) / 2,
        ]
        for slot in range(SECTIONS):
            section = self.sections[slot] if slot < len(self.sections) else None
            heading = set(words(section.heading)) if section else set()
            out += [float(section is not None), float(slot in self.picked)]
            out.append(len(heading & brief_words) / max(1, len(heading)))
        section, blocks = self.current, self.blocks()
        for j in range(BLOCKS):
            out += (
                self.block_cues(section, blocks[j])
                if section is not None and j < len(blocks)
                else [0.0] * BLOCK_CUES
            )
        n = max(1, len(self.draft))
        out.append(sum(self._mistoned(b) and not fixed for _, b, fixed in self.draft) / n)
        out.append(sum(self._repeats(b, i) for i, (_, b, _) in enumerate(self.draft)) / n)
        out.append(min(1.0, abs(len(self.picked) - self.brief.sections_wanted) / 3))
        return np.array(out, dtype=np.float32)

    def _info(self, rewards: Mapping[str, float] | None = None) -> dict[str, Any]:
        return {
            "brief": self.brief.id,
            "phase": self.phase,
            "steps": self.step_count,
            "sections": [self.sections[i].heading for i in self.picked],
            "draft_kinds": [b.kind for _, b, _ in self.draft],
            # what a deployed team's writer writes from (serving.generation.sections): the draft's blocks
            "draft": [{"heading": s.heading, "text": b.text, "fixed": f} for s, b, f in self.draft],
            "scores": dict(self.scores),
            "score": float(self.scores.get("score", 0.0)),
            "success": float(self.scores.get("score", 0.0)),  # what model selection ranks checkpoints by
            "accepted": self.phase == "done",
            "last": self.log[-1] if self.log else "start",
        }

    def render(self) -> str | None:
        body = "\n".join(f"## {s.heading}\n{b.text}" for s, b, _ in self.draft)
        return f"{self.brief.text}\n[{self.phase}] {self.log[-1] if self.log else 'start'}\n{body}"


def play(
    policy: Any, env: CollaborativeWritingEnv, brief_ids: list[str] | None = None, seed: int = 1000
) -> dict[str, Any]:
    """Mean judge score (and its parts) of `policy` ({agent: obs} -> {agent: action}) once per brief
    (episode k reset with ``seed + k``: with ``shuffle`` on, every brief gets its own order)."""
    infos = play_items(policy, env, "brief", brief_ids or [b.id for b in env.briefs], seed)
    rows = [{"score": i.get("score", 0.0), "steps": i.get("steps", 0), **i.get("scores", {})} for i in infos]
    keys = ("score", "steps", "coverage", "relevance", "redundancy", "tone", "length")
    out: dict[str, Any] = {k: float(np.mean([r.get(k, 0.0) for r in rows])) for k in keys}
    out["items"] = len(rows)
    return out
