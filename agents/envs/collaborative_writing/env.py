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
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agents.envs.collaborative_writing.briefs import (
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
from agents.envs.params import check_known_params, describe_params
from agents.errors import SpecError

AGENTS: tuple[str, ...] = ("planner", "writer", "polisher")
PHASES: tuple[str, ...] = ("plan", "write", "polish", "done")
PHASE_AGENT = dict(zip(PHASES, AGENTS, strict=False))
SECTIONS, BLOCKS = 6, 4
ROLE_ACTIONS: dict[str, tuple[str, ...]] = {
    "planner": ("wait", "done", *(f"pick_section_{i}" for i in range(SECTIONS))),
    "writer": ("wait", *(f"block_{j}" for j in range(BLOCKS))),
    "polisher": ("wait", "accept", "fix_tone", "cut_redundant"),
}
"""Action names per agent; an agent's action is the index into its tuple (0 = wait)."""
DEFAULTS: dict[str, Any] = {
    "briefs": None,
    "split": "train",
    "max_sections": 5,
    "max_steps": 16,
    "polish_cost": 0.02,
    "shaping": 1.0,
    "final_weight": 1.0,
    "timeout_penalty": 1.0,
    "shuffle": True,
}
PARAMETERS = describe_params(
    DEFAULTS,
    {
        "briefs": "A JSONL brief file; empty = the shipped briefs (data/collaborative_writing/briefs.jsonl).",
        "split": "Which briefs to draw: train, test or all.",
        "max_sections": "Most sections the planner may pick.",
        "max_steps": "Steps the team gets per post before it times out.",
        "polish_cost": "Cost of each polishing pass.",
        "shaping": "Weight of the per-step shaping rewards (0 = the judge's score alone).",
        "final_weight": "Weight of the judge's score paid to every agent at acceptance.",
        "timeout_penalty": "Penalty when the steps run out without acceptance.",
        "shuffle": "Draw briefs at random (off: in order).",
    },
    choices={"split": SPLITS},
)
BLOCK_CUES = 7
FEATURES = 6 + SECTIONS * 3 + BLOCKS * BLOCK_CUES + 3


class CollaborativeWritingEnv(ParallelEnv):
    """Planner, writer and polisher compose a post from a local pool of sections and blocks."""

    parameters = PARAMETERS
    metadata = {"name": "collaborative_writing_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(
        self,
        briefs: str | Path | None = None,
        split: str = "train",
        max_sections: int = 5,
        max_steps: int = 16,
        polish_cost: float = 0.02,
        shaping: float = 1.0,
        final_weight: float = 1.0,
        timeout_penalty: float = 1.0,
        shuffle: bool = True,
        render_mode: str | None = None,
    ) -> None:
        errors = self.validate_params({k: v for k, v in locals().items() if k in DEFAULTS})
        if errors:
            raise ValueError(f"collaborative_writing: {errors[0].path}: {errors[0].message}")
        self.briefs = load_briefs(briefs, split)
        self.max_sections, self.max_steps = int(max_sections), int(max_steps)
        self.polish_cost, self.final_weight = float(polish_cost), float(final_weight)
        self.shaping = float(shaping)
        self.timeout_penalty, self.shuffle = float(timeout_penalty), bool(shuffle)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self._rng = np.random.default_rng()
        self._cursor = 0
        self._start(self.briefs[0])

    @staticmethod
    def expected_agents(params: Mapping[str, Any] | None = None) -> list[str]:
        return list(AGENTS)

    @staticmethod
    def validate_params(params: Mapping[str, Any]) -> list[SpecError]:
        """Every problem with ``environment.params`` (paths rooted at params; never raises)."""
        errors, merged = check_known_params(params, DEFAULTS)
        if not isinstance(params, Mapping):
            return errors
        path = merged["briefs"]
        if path is not None and (not isinstance(path, str | Path) or not Path(path).is_file()):
            errors.append(
                SpecError("$.briefs", "must be a JSONL brief file (or null for the shipped briefs)")
            )
        if merged["split"] not in SPLITS:
            errors.append(SpecError("$.split", f"must be one of {', '.join(SPLITS)}"))
        for key, low, high in (("max_sections", 1, SECTIONS), ("max_steps", 8, 200)):
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                errors.append(SpecError(f"$.{key}", f"must be an integer between {low} and {high}"))
        for key in ("polish_cost", "shaping", "final_weight", "timeout_penalty"):
            value = merged[key]
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 10:
                errors.append(SpecError(f"$.{key}", "must be a number between 0 and 10"))
        if not isinstance(merged["shuffle"], bool):
            errors.append(SpecError("$.shuffle", "must be true or false"))
        return errors

    @functools.cache  # noqa: B019 - PettingZoo wants the same space object on every call
    def observation_space(self, agent: str) -> spaces.Dict:
        return spaces.Dict(
            {
                "features": spaces.Box(0.0, 1.0, shape=(FEATURES,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(len(ROLE_ACTIONS[agent]),), dtype=np.int8),
            }
        )

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Discrete:
        return spaces.Discrete(len(ROLE_ACTIONS[agent]))

    # ---------------------------------------------------------------------------------------- episodes
    def _start(self, brief: Brief) -> None:
        self.brief = brief
        self.sections: list[Section] = [brief.sections[int(i)] for i in self._perm(len(brief.sections))][
            :SECTIONS
        ]
        self.block_order = {s.heading: [int(i) for i in self._perm(len(s.blocks))] for s in self.sections}
        self.phase = "plan"
        self.picked: list[int] = []  # section slots, in the planner's order
        self.draft: list[tuple[Section, Block, bool]] = []
        self.polished: set[str] = set()
        self.step_count = 0
        self.scores: dict[str, float] = {}
        self.log: list[str] = []

    def _perm(self, n: int) -> np.ndarray:
        return self._rng.permutation(n) if self.shuffle else np.arange(n)

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start a post; ``options={"brief": id}`` picks the brief (else at random, or in order)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._cursor = 0
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)
        wanted = (options or {}).get("brief")
        if wanted is not None:
            matches = [b for b in self.briefs if b.id == wanted]
            if not matches:
                raise BriefError(f"unknown brief {wanted!r} in this split")
            brief = matches[0]
        elif self.shuffle:
            brief = self.briefs[int(self._rng.integers(len(self.briefs)))]
        else:
            brief = self.briefs[self._cursor % len(self.briefs)]
            self._cursor += 1
        self._start(brief)
        self.agents = list(self.possible_agents)
        info = self._info()
        return self._observations(), {a: dict(info) for a in self.agents}

    @property
    def current(self) -> Section | None:
        """The section the writer fills next (None outside the write phase)."""
        if self.phase != "write" or len(self.draft) >= len(self.picked):
            return None
        return self.sections[self.picked[len(self.draft)]]

    def blocks(self) -> list[Block]:
        section = self.current
        return [] if section is None else [section.blocks[i] for i in self.block_order[section.heading]]

    def action_mask(self, agent: str) -> np.ndarray:
        names = ROLE_ACTIONS[agent]
        mask = np.zeros(len(names), dtype=np.int8)
        if self.phase == "done" or PHASE_AGENT[self.phase] != agent:
            mask[0] = 1
            return mask
        for i, name in enumerate(names):
            mask[i] = int(self._valid(name))
        return mask

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

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            return {}, {}, {}, {}, {}
        self.step_count += 1
        actor = PHASE_AGENT[self.phase]
        index = int(actions.get(actor, 0))
        names = ROLE_ACTIONS[actor]
        name = names[index] if 0 <= index < len(names) else "invalid"
        reward, shaped = 0.0, 0.0
        if name != "invalid" and self._valid(name):
            shaped = self.shaping * self._shaping(name)
            reward = self._act(name)
            self.log.append(f"{actor}: {name}")
        else:
            self.log.append(f"{actor}: invalid {name}, ignored")
        terminated = self.phase == "done"
        truncated = not terminated and self.step_count >= self.max_steps
        if truncated:
            reward -= self.timeout_penalty
        observations, info, live = self._observations(), self._info(), list(self.agents)
        if terminated or truncated:
            self.agents = []
        rewards = {a: float(reward + (shaped if a == actor else 0.0)) for a in live}
        return (
            observations,
            rewards,
            dict.fromkeys(live, terminated),
            dict.fromkeys(live, truncated),
            {a: dict(info) for a in live},
        )

    def _act(self, name: str) -> float:
        if name.startswith("pick_section_"):
            self.picked.append(int(name.rsplit("_", 1)[1]))
            if len(self.picked) >= self.max_sections:
                self.phase = "write"
            return 0.0
        if name == "done":
            self.phase = "write"
            return 0.0
        if name.startswith("block_"):
            section = self.current
            assert section is not None
            self.draft.append((section, self.blocks()[int(name[6:])], False))
            if len(self.draft) >= len(self.picked):
                self.phase = "polish"
            return 0.0
        if name == "fix_tone":
            self.polished.add(name)
            self.draft = [(s, b, fixed or self._mistoned(b)) for s, b, fixed in self.draft]
            return -self.polish_cost
        if name == "cut_redundant":
            self.polished.add(name)
            self.draft = [row for i, row in enumerate(self.draft) if not self._repeats(row[1], i)]
            return -self.polish_cost
        self.scores = judge(self.brief, self.draft)  # accept
        self.phase = "done"
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

    def _observations(self) -> dict[str, dict]:
        features = self.features()
        return {a: {"features": features, "action_mask": self.action_mask(a)} for a in self.agents}

    def state(self) -> np.ndarray:
        """Global state for the centralised critic: phase one-hot ‖ the shared features."""
        return np.concatenate(
            [np.array([float(p == self.phase) for p in PHASES], np.float32), self.features()]
        )

    def _info(self) -> dict[str, Any]:
        return {
            "brief": self.brief.id,
            "phase": self.phase,
            "steps": self.step_count,
            "sections": [self.sections[i].heading for i in self.picked],
            "draft_kinds": [b.kind for _, b, _ in self.draft],
            "scores": dict(self.scores),
            "score": float(self.scores.get("score", 0.0)),
            "success": float(self.scores.get("score", 0.0)),  # what model selection ranks checkpoints by
            "accepted": self.phase == "done",
            "last": self.log[-1] if self.log else "start",
        }

    def render(self) -> str | None:
        body = "\n".join(f"## {s.heading}\n{b.text}" for s, b, _ in self.draft)
        return f"{self.brief.text}\n[{self.phase}] {self.log[-1] if self.log else 'start'}\n{body}"

    def close(self) -> None:
        """Nothing to release."""


def play(
    policy: Any, env: CollaborativeWritingEnv, brief_ids: list[str] | None = None, seed: int = 1000
) -> dict[str, Any]:
    """Mean judge score (and its parts) of `policy` ({agent: obs} -> {agent: action}) once per brief
    (episode k reset with ``seed + k``: with ``shuffle`` on, every brief gets its own order)."""
    rows = []
    for number, brief in enumerate(brief_ids or [b.id for b in env.briefs]):
        obs, _ = env.reset(seed=seed + number, options={"brief": brief})
        info: dict[str, Any] = {}
        while env.agents:
            obs, _, _, _, infos = env.step(policy(obs))
            info = next(iter(infos.values()), info)
        rows.append(
            {"score": info.get("score", 0.0), "steps": info.get("steps", 0), **info.get("scores", {})}
        )
    keys = ("score", "steps", "coverage", "relevance", "redundancy", "tone", "length")
    out: dict[str, Any] = {k: float(np.mean([r.get(k, 0.0) for r in rows])) for k in keys}
    out["items"] = len(rows)
    return out
