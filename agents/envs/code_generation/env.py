"""CodeGenerationEnv: architect, implementer, tester and code reviewer ship a small Python function.

A PettingZoo ParallelEnv over the tasks of data/code_generation (`agents.envs.code_generation.tasks`). Every
step each agent acts, but only the agent whose phase it is does something (the others' only valid action
is ``wait``; ``action_mask`` says which actions are valid):

1. design — ``architect``: ``plan_direct`` or ``plan_edge_cases`` (the design lists the spec's edge cases,
   so the tester can write edge-case tests; costs ``plan_cost``).
2. implement — ``implementer``: ``pick_i``, one of the task's candidate snippets (shuffled per episode; a
   snippet sent back cannot be picked again).
3. test — ``tester``: ``run_public`` (the spec's examples), ``run_edge`` (only with an edge-case design), or
   ``done``; each run costs ``test_cost`` and its pass / fail shows in every observation.
4. review — ``code_reviewer``: ``accept`` (ends: the hidden tests run once) or ``send_back`` (costs
   ``send_back_cost``; the implementer picks another snippet).

Reward: shaping to the acting agent (``shaping`` × `CodeGenerationEnv._shaping`), and to every agent: on
acceptance 1.0 when every hidden test passes on that
first run, else 0.5 × the share that passed; minus the costs above; −``timeout_penalty`` when
``max_steps`` pass without acceptance. All tests run in the sandbox (`.sandbox`), never in this process.
Observations: numbers for what the team can see (test results so far, the design, cues read off each
snippet, whether the spec names an edge case) — no correctness labels, and not the spec's text: with a few
dozen training tasks an embedding of the spec is a key to memorise them by, and the team must work on
unseen tasks (the test split). The spec is in ``info["task"]`` and `render`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from agents.envs.code_generation.tasks import EDGE_WORDS, SHARED_BOOK, SPLITS, Task, TaskError, load_tasks
from agents.envs.params import check_known_params, describe_params
from agents.errors import SpecError

AGENTS: tuple[str, ...] = ("architect", "implementer", "tester", "code_reviewer")
PHASES: tuple[str, ...] = ("design", "implement", "test", "review", "done")
PHASE_AGENT = dict(zip(PHASES, AGENTS, strict=False))
SLOTS = 3
ROLE_ACTIONS: dict[str, tuple[str, ...]] = {
    "architect": ("wait", "plan_direct", "plan_edge_cases"),
    "implementer": ("wait", *(f"pick_{i}" for i in range(SLOTS))),
    "tester": ("wait", "run_public", "run_edge", "done"),
    "code_reviewer": ("wait", "accept", "send_back"),
}
"""Action names per agent; an agent's action is the index into its tuple (0 = wait)."""
DEFAULTS: dict[str, Any] = {
    "tasks": None,
    "split": "train",
    "max_steps": 14,
    "plan_cost": 0.01,
    "test_cost": 0.01,
    "send_back_cost": 0.05,
    "shaping": 1.0,
    "timeout_penalty": 1.0,
    "shuffle": True,
}
PARAMETERS = describe_params(
    DEFAULTS,
    {
        "tasks": "A JSONL task file; empty = the shipped tasks (data/code_generation/tasks.jsonl).",
        "split": "Which tasks to draw: train, test or all.",
        "max_steps": "Steps the team gets per task before it times out.",
        "plan_cost": "Cost of a design that lists edge cases.",
        "test_cost": "Cost of each test-suite run before review.",
        "send_back_cost": "Cost of each send-back.",
        "shaping": "Weight of the per-step shaping rewards (0 = the hidden tests' score alone).",
        "timeout_penalty": "Penalty when the steps run out without acceptance.",
        "shuffle": "Draw tasks at random (off: in order).",
    },
    choices={"split": SPLITS},
)
FEATURES = 3 + 3 + 1 + SLOTS * 9


def snippet_cues(code: str) -> tuple[float, float]:
    """What a reader sees in a snippet without running it: (lines / 12, whether it guards a corner case)."""
    lines = [line for line in code.splitlines() if line.strip()]
    guard = any(
        cue in code for cue in ("if not ", "== 0", "default=", "is None", "if words", "% len", "abs(")
    )
    return min(1.0, len(lines) / 12), float(guard)


class CodeGenerationEnv(ParallelEnv):
    """Four roles turn a spec into a function that must pass hidden tests on the first run."""

    parameters = PARAMETERS
    metadata = {"name": "code_generation_v0", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(
        self,
        tasks: str | Path | None = None,
        split: str = "train",
        max_steps: int = 14,
        plan_cost: float = 0.01,
        test_cost: float = 0.01,
        send_back_cost: float = 0.05,
        shaping: float = 1.0,
        timeout_penalty: float = 1.0,
        shuffle: bool = True,
        render_mode: str | None = None,
    ) -> None:
        errors = self.validate_params({k: v for k, v in locals().items() if k in DEFAULTS})
        if errors:
            raise ValueError(f"code_generation: {errors[0].path}: {errors[0].message}")
        self.tasks = load_tasks(tasks, split)
        self.max_steps, self.shuffle = int(max_steps), bool(shuffle)
        self.plan_cost, self.test_cost = float(plan_cost), float(test_cost)
        self.send_back_cost, self.timeout_penalty = float(send_back_cost), float(timeout_penalty)
        self.shaping = float(shaping)
        self.render_mode = render_mode
        self.book = SHARED_BOOK
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self._rng = np.random.default_rng()
        self._cursor = 0
        self._start(self.tasks[0])

    @staticmethod
    def expected_agents(params: Mapping[str, Any] | None = None) -> list[str]:
        return list(AGENTS)

    @staticmethod
    def validate_params(params: Mapping[str, Any]) -> list[SpecError]:
        """Every problem with ``environment.params`` (paths rooted at params; never raises)."""
        errors, merged = check_known_params(params, DEFAULTS)
        if not isinstance(params, Mapping):
            return errors
        path = merged["tasks"]
        if path is not None and (not isinstance(path, str | Path) or not Path(path).is_file()):
            errors.append(SpecError("$.tasks", "must be a JSONL task file (or null for the shipped tasks)"))
        if merged["split"] not in SPLITS:
            errors.append(SpecError("$.split", f"must be one of {', '.join(SPLITS)}"))
        value = merged["max_steps"]
        if isinstance(value, bool) or not isinstance(value, int) or not 6 <= value <= 200:
            errors.append(SpecError("$.max_steps", "must be an integer between 6 and 200"))
        for key in ("plan_cost", "test_cost", "send_back_cost", "shaping", "timeout_penalty"):
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
    def _start(self, task: Task) -> None:
        self.task = task
        order = (
            self._rng.permutation(len(task.candidates)) if self.shuffle else np.arange(len(task.candidates))
        )
        self.order = [int(i) for i in order]  # slot -> candidate index in the task
        self.phase, self.plan = "design", None
        self.current: int | None = None
        self.rejected: set[int] = set()
        self.results: dict[tuple[int, str], bool] = {}  # (slot, suite) -> all passed
        self.step_count = self.send_backs = self.runs = 0
        self.hidden: tuple[int, int] | None = None
        self.log: list[str] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """Start a task; ``options={"task": id}`` picks it (else at random, or in order without shuffle)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._cursor = 0
            for i, agent in enumerate(self.possible_agents):
                self.action_space(agent).seed(seed + i)
        wanted = (options or {}).get("task")
        if wanted is not None:
            matches = [t for t in self.tasks if t.id == wanted]
            if not matches:
                raise TaskError(f"unknown task {wanted!r} in this split")
            task = matches[0]
        elif self.shuffle:
            task = self.tasks[int(self._rng.integers(len(self.tasks)))]
        else:
            task = self.tasks[self._cursor % len(self.tasks)]
            self._cursor += 1
        self._start(task)
        self.agents = list(self.possible_agents)
        info = self._info()
        return self._observations(), {a: dict(info) for a in self.agents}

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
        if name.startswith("pick_"):
            slot = int(name[5:])
            return slot < len(self.order) and slot not in self.rejected
        if name == "run_public":
            return (self.current, "public") not in self.results
        if name == "run_edge":
            return self.plan == "edge_cases" and (self.current, "edge") not in self.results
        if name == "send_back":
            return len(self.rejected) + 1 < len(self.order)
        return True

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            return {}, {}, {}, {}, {}
        self.step_count += 1
        reward, shaped = 0.0, 0.0
        actor = PHASE_AGENT[self.phase]
        index = int(actions.get(actor, 0))
        names = ROLE_ACTIONS[actor]
        name = names[index] if 0 <= index < len(names) else "invalid"
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
        return (
            observations,
            {a: float(reward + (shaped if a == actor else 0.0)) for a in live},
            dict.fromkeys(live, terminated),
            dict.fromkeys(live, truncated),
            {a: dict(info) for a in live},
        )

    def _correct(self, slot: int | None) -> bool:
        if slot is None:
            return False
        passed, total = self.book.passed(self.task, self.order[slot], "hidden")
        return passed == total

    def _shaping(self, name: str) -> float:
        """The acting agent's shaping for `name` (from the hidden tests, before the action applies):
        implementer +0.1 for a snippet that passes them; tester +0.05 for a run that exposes a failing
        snippet; reviewer +0.1 for sending back a failing snippet, −0.1 for sending back a passing one."""
        if name.startswith("pick_"):
            return 0.1 if self._correct(int(name[5:])) else 0.0
        if name.startswith("run_"):
            passed, total = self.book.passed(self.task, self.order[self.current], name[4:])
            return 0.05 if passed < total else 0.0
        if name == "send_back":
            return -0.1 if self._correct(self.current) else 0.1
        return 0.0

    def _act(self, name: str) -> float:
        if name.startswith("plan_"):
            self.plan = name[5:]
            self.phase = "implement"
            return -self.plan_cost if self.plan == "edge_cases" else 0.0
        if name.startswith("pick_"):
            self.current = int(name[5:])
            self.phase = "test"
            return 0.0
        if name.startswith("run_"):
            suite = name[4:]
            passed, total = self.book.passed(self.task, self.order[self.current], suite)
            self.results[(self.current, suite)] = passed == total
            self.runs += 1
            return -self.test_cost
        if name == "done":
            self.phase = "review"
            return 0.0
        if name == "send_back":
            self.rejected.add(self.current)
            self.send_backs += 1
            self.current, self.phase = None, "implement"
            return -self.send_back_cost
        self.hidden = self.book.passed(self.task, self.order[self.current], "hidden")  # accept
        self.phase = "done"
        return self.score

    @property
    def score(self) -> float:
        """The judge's score of the accepted snippet: 1 when all hidden tests pass, else half the share."""
        if self.hidden is None:
            return 0.0
        passed, total = self.hidden
        return 1.0 if passed == total else 0.5 * passed / max(1, total)

    # ------------------------------------------------------------------------------------ observations
    def features(self) -> np.ndarray:
        """step, send-backs, plan (none / direct / edge cases), spec names an edge case; per slot: present,
        rejected, current, public pass / fail known, edge pass / fail known, length, guard cue."""
        out = [
            min(1.0, self.step_count / self.max_steps),
            min(1.0, self.send_backs / 2),
            min(1.0, self.runs / 4),
        ]
        out += [float(self.plan is None), float(self.plan == "direct"), float(self.plan == "edge_cases")]
        out.append(float(bool(EDGE_WORDS.search(self.task.spec))))
        for slot in range(SLOTS):
            present = slot < len(self.order)
            code = self.task.candidates[self.order[slot]] if present else ""
            public, edge = self.results.get((slot, "public")), self.results.get((slot, "edge"))
            out += [float(present), float(slot in self.rejected), float(slot == self.current)]
            out += [float(public is True), float(public is False), float(edge is True), float(edge is False)]
            out += list(snippet_cues(code)) if present else [0.0, 0.0]
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
            "task": self.task.id,
            "phase": self.phase,
            "steps": self.step_count,
            "send_backs": self.send_backs,
            "test_runs": self.runs,
            "plan": self.plan,
            "score": self.score,
            "accepted": self.phase == "done",
            "success": float(self.hidden is not None and self.hidden[0] == self.hidden[1]),
            "last": self.log[-1] if self.log else "start",
        }

    def render(self) -> str | None:
        picked = self.task.candidates[self.order[self.current]] if self.current is not None else "(nothing)"
        return f"[{self.phase}] {self.task.name}: {self.log[-1] if self.log else 'start'}\n{picked}"

    def close(self) -> None:
        """Nothing to release."""


def play(
    policy: Any, env: CodeGenerationEnv, task_ids: list[str] | None = None, seed: int = 1000
) -> dict[str, float]:
    """Mean score / success / steps of `policy` ({agent: obs} -> {agent: action}) once on every task
    (episode k reset with ``seed + k``: with ``shuffle`` on, every task gets its own snippet order)."""
    scores, wins, steps = [], [], []
    for number, task in enumerate(task_ids or [t.id for t in env.tasks]):
        obs, _ = env.reset(seed=seed + number, options={"task": task})
        info: dict[str, Any] = {}
        while env.agents:
            obs, _, _, _, infos = env.step(policy(obs))
            info = next(iter(infos.values()), info)
        scores.append(info.get("score", 0.0))
        wins.append(info.get("success", 0.0))
        steps.append(info.get("steps", 0))
    return {
        "score": float(np.mean(scores)),
        "success": float(np.mean(wins)),
        "steps": float(np.mean(steps)),
        "items": len(scores),
    }
