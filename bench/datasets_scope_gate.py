"""Datasets benchmark: what a gated deployment's first ticket waits for, its scope gate built cold or read
from the gate's store (``datasets.<domain>.scope_gate``, ``datasets.out_of_scope.scope_gate``).

A deployment with its scope gate on builds the gate before its first gated ticket (`serving.scope`): cold,
the backbone encodes every anchor and out-of-scope ticket and the vectors are written beside the checkpoint
(``scope_gate.npz``); a later process reads them back and re-encodes one text to check the weights. Both are
timed here through the product's own path, for the team the benchmark trained: a runtime loaded from the
checkpoint as a deployment loads it (`TeamRuntime.from_spec_checkpoint`, gate on), then
`TeamRuntime.prepare_scope_gate` (what the web app's background warm-up calls), then the gate's check of one
ticket. Before each build the backbone's embedding cache is emptied, so that no vector comes from an earlier
build of this process (a fresh server process has none). Cold and store builds alternate, ``repeats`` of each;
the medians are reported. The runtime's own load (checkpoint, fallback) is not in the timings: a deployment
pays it with or without the gate.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from serving.runtime import RuntimeConfig, TeamRuntime
from serving.scope import STORE_FILE

REPEATS = 3
"""Cold and store builds timed per team in a full run (a quick run times one of each)."""


def _timed_build(team: Any, checkpoint: Path, backbone: Any, text: str) -> tuple[float, float, dict]:
    """One gate built by a freshly loaded runtime: (build seconds, first check milliseconds, describe())."""
    config = RuntimeConfig(scope_gate=True, timeout_s=None)  # no batching thread: the check is timed alone
    with TeamRuntime.from_spec_checkpoint(team, checkpoint, backbone=backbone, config=config) as runtime:
        backbone.clear_cache()  # as in a new process: no vector encoded before this build
        started = time.perf_counter()
        gate = runtime.prepare_scope_gate()
        built = time.perf_counter() - started
        if gate is None:
            raise ValueError(f"{team.name!r} has no scope gate: its environment has no intent catalogue")
        started = time.perf_counter()
        gate.check(text)
        checked = time.perf_counter() - started
        return built, checked * 1000.0, gate.describe()


def cold_start(team: Any, checkpoint: str | Path, backbone: Any, text: str, quick: bool) -> dict[str, Any]:
    """The keys of ``scope_gate`` (bench/README.md) for ``team``'s gate over ``checkpoint``, its first check
    on ``text``: medians of `REPEATS` builds with no store (quick: one) and as many read from the store the
    cold build wrote. Raises RuntimeError if a build meant to read the store encoded instead, or read another
    gate."""
    checkpoint, repeats = Path(checkpoint), 1 if quick else REPEATS
    cold: list[tuple[float, float]] = []
    stored: list[tuple[float, float]] = []
    for _ in range(repeats):
        (checkpoint / STORE_FILE).unlink(missing_ok=True)
        *timing, first = _timed_build(team, checkpoint, backbone, text)
        cold.append(tuple(timing))
        *timing, again = _timed_build(team, checkpoint, backbone, text)
        stored.append(tuple(timing))
        if first["vectors"] != "encoded" or again != first | {"vectors": "store"}:
            raise RuntimeError(f"the store did not give back the cold gate: {first} vs {again}")
    build, load = statistics.median(t[0] for t in cold), statistics.median(t[0] for t in stored)
    return {
        "build_cold_seconds": round(build, 3),
        "load_from_store_seconds": round(load, 3),
        "store_speedup": round(build / load, 1) if load > 0 else None,
        "first_check_ms_after_cold": round(statistics.median(t[1] for t in cold), 2),
        "first_check_ms_after_store": round(statistics.median(t[1] for t in stored), 2),
        "repeats": repeats,
        "anchors": first["anchors"],
        "outside": first["outside"],
    }
