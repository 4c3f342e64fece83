"""The scripted writing team: a sensible fixed heuristic (the baseline and the runtime fallback).

- planner: the sections whose headings share the most words with the brief, as many as the brief asks;
- writer: per section, leaves out blocks in the wrong tone and blocks that restate a drafted one or name
  another section's aspect, then takes
  the block most relevant to the heading by keyword overlap (share of the heading's words, then their
  density) — classic keyword relevance;
- polisher: fixes the tone when a drafted block is in the wrong tone, cuts restated blocks when there are
  any, then accepts.

It reads only its own observation (the action mask and the feature vector). A second polisher applies the
same rule to the polished draft (what is left to fix), then accepts.
"""

from __future__ import annotations

import numpy as np

from agents.envs.collaborative_writing.env import BLOCK_CUES, BLOCKS, SECTIONS, CollaborativeWritingEnv
from agents.envs.pipeline import ScriptedPipeline


class ScriptedWritingTeam(ScriptedPipeline):
    """One fixed rule per role of `CollaborativeWritingEnv`, for every agent of the drawn team (``team``)."""

    env = CollaborativeWritingEnv

    def _planner(self, f: np.ndarray, mask: np.ndarray, names: tuple[str, ...]) -> str:
        wanted, picked = round(f[2] * SECTIONS), round(f[3] * SECTIONS)
        if picked >= wanted:
            return "done"
        slots = [f[6 + 3 * i : 9 + 3 * i] for i in range(SECTIONS)]
        free = [(-s[2], i) for i, s in enumerate(slots) if s[0] > 0.5 and s[1] < 0.5]
        return f"pick_section_{min(free)[1]}" if free else "done"

    def _writer(self, f: np.ndarray, mask: np.ndarray, names: tuple[str, ...]) -> str:
        start = 6 + 3 * SECTIONS
        cues = [f[start + BLOCK_CUES * j : start + BLOCK_CUES * (j + 1)] for j in range(BLOCKS)]
        ranked = sorted(
            (c[3] > 0.5 or c[4] > 0.5 or c[5] > 0.5, -c[0], -c[1], j)
            for j, c in enumerate(cues)
            if mask[names.index(f"block_{j}")]
        )
        return f"block_{ranked[0][3]}"

    def _polisher(self, f: np.ndarray, mask: np.ndarray, names: tuple[str, ...]) -> str:
        if f[-3] > 0 and mask[names.index("fix_tone")]:
            return "fix_tone"
        if f[-2] > 0 and mask[names.index("cut_redundant")]:
            return "cut_redundant"
        return "accept"
