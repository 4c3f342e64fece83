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

The team comes from the spec (`agents.envs.pipeline`: ``team=`` its agents, ``edges=`` its dependency
edges; without them one agent per role): one architect, one implementer, one or two testers, who test the
same snippet in turn (``done`` hands over; a suite already run is not run again), and one or two code
reviewers, who judge it in turn (``accept`` hands over; the last one's accept runs the hidden tests; a
send-back returns to the implementer and the next round starts with the first reviewer).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.envs.code_generation.tasks import (
    EDGE_WORDS,
    SHARED_BOOK,
    SPLITS,
    TASK_FILES,
    Task,
    TaskError,
    load_tasks,
)
from agents.envs.params import EnvParams, param
from agents.envs.pipeline import PhasePipelineEnv, PipelineTeam, Role, data_file_problem
from agents.envs.pipeline import play as play_items
from agents.errors import SpecError

PHASES: tuple[str, ...] = ("design", "implement", "test", "review", "done")
SLOTS = 3
ROLES: tuple[Role, ...] = (
    Role("architect", "design", ("wait", "plan_direct", "plan_edge_cases"), "sketch the design"),
    Role("implementer", "implement", ("wait", *(f"pick_{i}" for i in range(SLOTS))), "write the code"),
    Role("tester", "test", ("wait", "run_public", "run_edge", "done"), "test the code", most=2),
    Role("code_reviewer", "review", ("wait", "accept", "send_back"), "accept or send back the code", most=2),
)
"""The roles the pipeline needs, in stage order, and how many agents of each a team may hold."""
AGENTS: tuple[str, ...] = tuple(r.name for r in ROLES)
ROLE_ACTIONS: dict[str, tuple[str, ...]] = {r.name: r.actions for r in ROLES}
"""Action names per agent; an agent's action is the index into its tuple (0 = wait)."""


def _cost(default: float, help: str) -> Any:
    return param(default, help, low=0, high=10)


@dataclass(frozen=True)
class CodeGenerationParams(EnvParams):
    """The environment's parameters (the spec's ``environment.params``), each declared once."""

    tasks: str | None = param(
        None,
        "A JSONL task file by name: a shipped one (tasks) or one in the server's code_generation data "
        "directory (on your own machine, a path too); empty = the shipped tasks.",
        data=TASK_FILES,
    )
    split: str = param("train", "Which tasks to draw: train, test or all.", choices=SPLITS)
    max_steps: int = param(14, "Steps the team gets per task before it times out.", low=6, high=200)
    plan_cost: float = _cost(0.01, "Cost of a design that lists edge cases.")
    test_cost: float = _cost(0.01, "Cost of each test-suite run before review.")
    send_back_cost: float = _cost(0.05, "Cost of each send-back.")
    shaping: float = _cost(1.0, "Weight of the per-step shaping rewards (0 = the hidden tests' score alone).")
    timeout_penalty: float = _cost(1.0, "Penalty when the steps run out without acceptance.")
    shuffle: bool = param(True, "Draw tasks at random (off: in order).")

    @classmethod
    def related_problems(cls, merged: Mapping[str, Any], bad: set[str]) -> list[SpecError]:
        """The task file must exist."""
        return data_file_problem("tasks", merged["tasks"], TASK_FILES)


DEFAULTS: dict[str, Any] = CodeGenerationParams.defaults()
PARAMETERS = CodeGenerationParams.describe()
FEATURES = 3 + 3 + 1 + SLOTS * 9


def snippet_cues(code: str) -> tuple[float, float]:
    """What a reader sees in a snippet without running it: (lines / 12, whether it guards a corner case)."""
    lines = [line for line in code.splitlines() if line.strip()]
    guard = any(
        cue in code for cue in ("if not ", "== 0", "default=", "is None", "if words", "% len", "abs(")
    )
    return min(1.0, len(lines) / 12), float(guard)


class CodeGenerationEnv(PhasePipelineEnv):
    """Four roles turn a spec into a function that must pass hidden tests on the first run."""

    parameters = PARAMETERS
    metadata = {"name": "code_generation_v0", "render_modes": ["ansi"], "is_parallelizable": True}
    roles, label, phases, feature_size = ROLES, "code generation", PHASES, FEATURES
    params_model = CodeGenerationParams
    item_option, items_attr, item_error = "task", "tasks", TaskError  # reset(options={"task": id})
    scope_folder = "code_generation"  # its scope_dev.jsonl sets the request floor

    def __init__(
        self,
        *,
        render_mode: str | None = None,
        team: Sequence[Any] | PipelineTeam | None = None,
        edges: Iterable[Any] | None = None,
        **params: Any,
    ) -> None:
        """``params``: `CodeGenerationParams`; ``team``: the spec's agents (None: one agent per role);
        ``edges``: its dependency edges."""
        p = self._configure(params, render_mode, team, edges)
        self.tasks = load_tasks(p.tasks, p.split)
        self.book = SHARED_BOOK
        self._start(self.tasks[0])

    # ---------------------------------------------------------------------------------------- episodes
    def _describe(self, task: Task) -> str:
        return f"{task.name.replace('_', ' ')}: {task.spec}"

    def _start(self, task: Task) -> None:
        self.task = task
        order = (
            self._rng.permutation(len(task.candidates)) if self.shuffle else np.arange(len(task.candidates))
        )
        self.order = [int(i) for i in order]  # slot -> candidate index in the task
        self._enter("design")
        self.plan: str | None = None
        self.current: int | None = None
        self.rejected: set[int] = set()
        self.results: dict[tuple[int, str], bool] = {}  # (slot, suite) -> all passed
        self.step_count = self.send_backs = self.runs = 0
        self.hidden: tuple[int, int] | None = None
        self.log: list[str] = []

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
            self._enter("implement")
            return -self.plan_cost if self.plan == "edge_cases" else 0.0
        if name.startswith("pick_"):
            self.current = int(name[5:])
            self._enter("test")
            return 0.0
        if name.startswith("run_"):
            suite = name[4:]
            passed, total = self.book.passed(self.task, self.order[self.current], suite)
            self.results[(self.current, suite)] = passed == total
            self.runs += 1
            return -self.test_cost
        if name == "done":
            self._hand_over("review")  # to the next tester, or to review
            return 0.0
        if name == "send_back":
            self.rejected.add(self.current)
            self.send_backs += 1
            self.current = None
            self._enter("implement")  # the next review round starts with the first reviewer
            return -self.send_back_cost
        if not self.last_in_stage:  # accept: the next reviewer looks at it too
            self._hand_over("done")
            return 0.0
        self.hidden = self.book.passed(self.task, self.order[self.current], "hidden")
        self._enter("done")
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

    def _info(self, rewards: Mapping[str, float] | None = None) -> dict[str, Any]:
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
            # the snippet under test or review (what a deployed team answers with) and its suites' outcomes
            "code": None if self.current is None else self.task.candidates[self.order[self.current]],
            "tests": {suite: ok for (slot, suite), ok in self.results.items() if slot == self.current},
            # the hidden tests' (passed, total) once the reviewers accepted: what a deployed reply reports
            "hidden_tests": None if self.hidden is None else list(self.hidden),
        }

    def render(self) -> str | None:
        picked = self.task.candidates[self.order[self.current]] if self.current is not None else "(nothing)"
        return f"[{self.phase}] {self.task.name}: {self.log[-1] if self.log else 'start'}\n{picked}"


def play(
    policy: Any, env: CodeGenerationEnv, task_ids: list[str] | None = None, seed: int = 1000
) -> dict[str, float]:
    """Mean score / success / steps of `policy` ({agent: obs} -> {agent: action}) once on every task
    (episode k reset with ``seed + k``: with ``shuffle`` on, every task gets its own snippet order)."""
    rows = play_items(policy, env, "task", task_ids or [t.id for t in env.tasks], seed)
    return {
        "score": float(np.mean([r.get("score", 0.0) for r in rows])),
        "success": float(np.mean([r.get("success", 0.0) for r in rows])),
        "steps": float(np.mean([r.get("steps", 0) for r in rows])),
        "items": len(rows),
    }
