"""The scripted code-generation team: a sensible fixed pipeline (the baseline and the runtime fallback).

- architect: lists edge cases when the spec names one (empty, zero, none, negative, ... : `EDGE_WORDS`),
  else plans directly;
- implementer: the shortest snippet not sent back (simplest code first);
- tester: runs the public tests, then the edge-case tests when the design lists them, then hands over;
- code reviewer: accepts unless a test run failed; sends back while another snippet is left.

It reads only its own observation (the action mask and the feature vector), so it runs anywhere the
trained team does. A second tester finds the suites already run and hands over; a second code reviewer
applies the same rule to the same results.
"""

from __future__ import annotations

import numpy as np

from agents.envs.code_generation.env import SLOTS, CodeGenerationEnv
from agents.envs.pipeline import ScriptedPipeline


class ScriptedCodeTeam(ScriptedPipeline):
    """One fixed rule per role of `CodeGenerationEnv`, for every agent of the drawn team (``team``)."""

    env = CodeGenerationEnv

    @staticmethod
    def _slots(f: np.ndarray) -> list[np.ndarray]:
        return [f[7 + 9 * s : 16 + 9 * s] for s in range(SLOTS)]

    def _architect(self, f: np.ndarray, mask: np.ndarray, names: tuple[str, ...]) -> str:
        return "plan_edge_cases" if f[6] > 0.5 else "plan_direct"

    def _implementer(self, f: np.ndarray, mask: np.ndarray, names: tuple[str, ...]) -> str:
        options = [
            (s[7], i) for i, s in enumerate(self._slots(f)) if s[0] > 0.5 and mask[names.index(f"pick_{i}")]
        ]
        return f"pick_{min(options)[1]}" if options else "pick_0"

    def _tester(self, f: np.ndarray, mask: np.ndarray, names: tuple[str, ...]) -> str:
        for action in ("run_public", "run_edge"):
            if mask[names.index(action)]:
                return action
        return "done"

    def _code_reviewer(self, f: np.ndarray, mask: np.ndarray, names: tuple[str, ...]) -> str:
        current = next((s for s in self._slots(f) if s[2] > 0.5), None)
        failed = current is not None and (current[4] > 0.5 or current[6] > 0.5)
        return "send_back" if failed and mask[names.index("send_back")] else "accept"
