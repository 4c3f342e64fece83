"""Collaborative writing and code generation templates, trained the product's way, against their scripts.

Each shipped template (examples/collaborative_writing.json, examples/code_generation.json) is trained with
its defaults untouched — only `training.seed` set — through `training.api.train`, the entry point a web
launch calls; the checkpoint a deployment would serve (`best` when present, else `last`) then plays every
item of the environment's *test* split once, greedily, and so does the environment's scripted team
(the same items, the same shuffles of sections, blocks and snippets: item k is reset with seed 1000 + k).
Figures are medians over seeds; `seconds` is the wall time of the whole `train` call (backbone loaded once
per process).

    python bench/template_workflows_writing.py --out FILE.json [--quick] [--seeds 0 1 2]
                                                [--templates collaborative_writing code_generation]

Returned per template (`measure_collaborative_writing(seeds, quick)`, `measure_code_generation(...)`):
{"score": trained team's mean judge score on the test items, "scripted_score": the scripted team's,
 "test_items": how many test items, "seconds": median training wall time, "runs": [per seed],
 "random_score": the mean score of random teams (the floor), "seeds": how many seeds}.
`--quick` trains one seed for a fraction of the episodes (a smoke run for tests, not a measurement).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

EXAMPLES = ROOT / "examples"
QUICK_EPISODES = {"collaborative_writing": 640, "code_generation": 640}
_BACKBONE: dict[str, Any] = {}


def _backbone() -> Any:
    from agents.backbone import Backbone

    if "b" not in _BACKBONE:
        _BACKBONE["b"] = Backbone.load("default", pooling="mean", max_length=64)
    return _BACKBONE["b"]


def _template(name: str, seed: int) -> dict[str, Any]:
    doc = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    doc["training"]["seed"] = int(seed)
    return doc


def random_score(env: Any, play: Any, teams: int = 20, seed: int = 0) -> float:
    """Mean score of `teams` uniformly random teams (each agent a random valid action): the floor."""
    import numpy as np

    rng = np.random.default_rng(seed)

    def act(observations: dict) -> dict:
        return {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in observations.items()}

    return float(np.mean([play(act, env)["score"] for _ in range(teams)]))


def _measure(name: str, seeds: list[int], quick: bool, play: Any, scripted: Any) -> dict[str, Any]:
    """Train template `name` per seed, then score the trained and the scripted team on the test split."""
    from agents.envs import make_env
    from agents.spec import load_spec
    from training import api
    from training.mappo import config_from_spec, trained_team

    torch.set_num_threads(1)
    backbone = _backbone()
    runs = []
    with tempfile.TemporaryDirectory(prefix=f"bench-{name}-") as work:
        for seed in seeds:
            doc = _template(name, seed)
            run_dir = Path(work) / f"s{seed}"
            shutil.rmtree(run_dir, ignore_errors=True)
            started = time.perf_counter()
            result = api.train(
                doc, run_dir, backbone=backbone, episodes=QUICK_EPISODES[name] if quick else None
            )
            seconds = time.perf_counter() - started
            team = load_spec(doc, require_environment=True)
            root = run_dir / "checkpoints" / "mappo"
            checkpoint = root / "best" if (root / "best" / "state.json").is_file() else root / "last"
            trainer = trained_team(team, config_from_spec(team), checkpoint, backbone)
            params = {**dict(team.environment.params), "split": "test", "shuffle": True}
            env = make_env(team.environment.name, params)
            trained = play(trainer.policy(greedy=True), env)
            baseline = play(scripted().actions, env)
            runs.append(
                {
                    "seed": seed,
                    "status": result.status,
                    "episodes": int(result.episodes),
                    "score": round(trained["score"], 4),
                    "scripted_score": round(baseline["score"], 4),
                    "trained": trained,
                    "scripted": baseline,
                    "test_items": trained["items"],
                    "seconds": round(seconds, 2),
                    "checkpoint": checkpoint.name,
                }
            )
            print(f"[{name}] seed {seed}: {runs[-1]}", file=sys.stderr, flush=True)
        floor = random_score(env, play)
    keys = ("score", "scripted_score", "test_items", "seconds")
    out: dict[str, Any] = {k: float(statistics.median([r[k] for r in runs])) for k in keys}
    out["random_score"] = round(floor, 4)
    out["test_items"] = int(out["test_items"])
    out["seeds"] = len(runs)
    out["runs"] = runs
    return out


def measure_code_generation(seeds: list[int], quick: bool) -> dict[str, Any]:
    """The code-generation template trained per seed; test-task scores against the scripted pipeline."""
    from agents.envs.code_generation.env import play
    from agents.envs.code_generation.scripted import ScriptedCodeTeam

    return _measure("code_generation", list(seeds), quick, play, ScriptedCodeTeam)


def measure_collaborative_writing(seeds: list[int], quick: bool) -> dict[str, Any]:
    """The collaborative-writing template trained per seed; test-brief scores against the scripted team."""
    from agents.envs.collaborative_writing.env import play
    from agents.envs.collaborative_writing.scripted import ScriptedWritingTeam

    return _measure("collaborative_writing", list(seeds), quick, play, ScriptedWritingTeam)


MEASURES = {
    "collaborative_writing": measure_collaborative_writing,
    "code_generation": measure_code_generation,
}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument("--quick", action="store_true", help="one seed, few episodes (a smoke run)")
    parser.add_argument("--seeds", type=int, nargs="+", help="training seeds (default 0 1 2 3 4; quick: 0)")
    parser.add_argument("--templates", nargs="+", choices=sorted(MEASURES), default=sorted(MEASURES))
    args = parser.parse_args(argv)
    seeds = args.seeds or ([0] if args.quick else [0, 1, 2, 3, 4])
    started = time.perf_counter()
    results: dict[str, Any] = {"seeds": seeds, "quick": bool(args.quick)}
    for name in args.templates:
        results[name] = MEASURES[name](seeds, args.quick)
    results["wall_seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return results


if __name__ == "__main__":
    main()
