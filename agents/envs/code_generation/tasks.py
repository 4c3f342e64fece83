"""The code-generation tasks (data/code_generation/tasks.jsonl) and their sandboxed test outcomes.

A task is a small Python function: its spec, three candidate implementations (the implementer's snippet
pool; in the shipped data one is correct, one subtly wrong on an edge case, one wrong on common inputs —
the labels are not stored: correctness is only ever what the sandbox says), the public tests the spec
comes with, the edge-case tests a tester can write when the architect's design lists edge cases, and the
hidden tests the judge runs once, on acceptance. Every test is an ``assert`` line.

`TestBook` runs each candidate once against the union of a task's tests in the sandbox
(`agents.envs.code_generation.sandbox`) and remembers the per-test outcomes, so an episode's "run the
tests" costs a lookup after the first time (the outcomes are deterministic; the first run of each
candidate still happens in a sandboxed child process, never in the training process).
"""

from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from agents import places
from agents.envs.code_generation.sandbox import SandboxLimits, run_tests

SPLITS = ("train", "test", "all")
TASK_FILES = places.DataFiles("code_generation", "task file")
"""What the ``tasks`` parameter names: a shipped task file or one in the server's folder (`agents.places`).
Its tests run in the sandbox, so on a server only those files are ever read."""
SUITES = ("public", "edge", "hidden")
EDGE_WORDS = re.compile(r"\b(empty|zero|none|negative|fewer|exceed|wrap|sign|either case|first)\b", re.I)
"""Words in a spec that announce an edge case (what the scripted architect plans for)."""


class TaskError(ValueError):
    """The task file is missing or malformed."""


@dataclass(frozen=True)
class Task:
    id: str
    split: str
    name: str
    spec: str
    candidates: tuple[str, ...]
    public_tests: tuple[str, ...]
    edge_tests: tuple[str, ...]
    hidden_tests: tuple[str, ...]

    def suite(self, name: str) -> tuple[str, ...]:
        return {"public": self.public_tests, "edge": self.edge_tests, "hidden": self.hidden_tests}[name]


def default_path() -> Path:
    """The shipped task file (``$MASE_CODE_TASKS`` overrides it)."""
    override = os.environ.get("MASE_CODE_TASKS")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[3] / "data" / "code_generation" / "tasks.jsonl"


def load_tasks(path: str | Path | None = None, split: str = "all") -> list[Task]:
    """The tasks of `split` ("train", "test" or "all") from a JSONL file (default: the shipped one)."""
    path = places.data_path(path, TASK_FILES) if path is not None else default_path()
    shown = places.shown(path)
    if split not in SPLITS:
        raise TaskError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    if not path.is_file():
        raise TaskError(f"code_generation: no task file at {shown}")
    tasks = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            task = Task(
                id=str(row["id"]),
                split=str(row["split"]),
                name=str(row["name"]),
                spec=str(row["spec"]),
                candidates=tuple(str(c["code"]) for c in row["candidates"]),
                public_tests=tuple(row["public_tests"]),
                edge_tests=tuple(row["edge_tests"]),
                hidden_tests=tuple(row["hidden_tests"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise TaskError(f"{shown}:{number}: not a task ({exc})") from None
        if not 1 <= len(task.candidates) <= 3 or not task.public_tests or not task.hidden_tests:
            raise TaskError(f"{shown}:{number}: a task needs 1-3 candidates, public and hidden tests")
        if split == "all" or task.split == split:
            tasks.append(task)
    if not tasks:
        raise TaskError(f"{shown}: no tasks in split {split!r}")
    return tasks


class TestBook:
    """Sandboxed outcomes per (task, candidate), each candidate run once (thread-safe, per process)."""

    __test__ = False  # not a pytest class

    def __init__(self, limits: SandboxLimits | None = None):
        self.limits = limits or SandboxLimits()
        self._outcomes: dict[tuple[str, int], dict[str, str]] = {}
        self._lock = threading.Lock()
        self.sandbox_runs = 0

    def outcomes(self, task: Task, candidate: int) -> dict[str, str]:
        key = (task.id, candidate)
        with self._lock:
            if key not in self._outcomes:
                tests = list(dict.fromkeys(task.public_tests + task.edge_tests + task.hidden_tests))
                result = run_tests(task.candidates[candidate], tests, self.limits)
                self.sandbox_runs += 1
                padded = result.outcomes + [result.status] * (len(tests) - len(result.outcomes))
                self._outcomes[key] = dict(zip(tests, padded, strict=True))
            return self._outcomes[key]

    def passed(self, task: Task, candidate: int, suite: str) -> tuple[int, int]:
        """(tests passed, tests run) of one suite."""
        seen = self.outcomes(task, candidate)
        tests = task.suite(suite)
        return sum(seen[t] == "pass" for t in tests), len(tests)


SHARED_BOOK = TestBook()
"""One book per process: environments (and their train / evaluation copies) share the sandbox results."""
