"""Research-report template benchmark: the shipped template (examples/research_report.json), trained with its
defaults untouched through `training.api.train` (the entry point a web launch calls), judged on the TEST
topics it never trained on, against the rule-scripted team on the same topics and the same result orders.

The template trains on the corpus's train topics (`environment.params.split = "train"`); evaluation builds
the same environment on `split = "test"` and runs every test topic with `ORDERS` orders of its search
results (shuffled by fixed reset seeds: the same orders for both teams), greedy. Score = mean judge score (0 for a report never accepted).

    python bench/template_workflows.py --out FILE.json [--seeds 0 1 2 3 4] [--quick]

`measure_research_report(seeds, quick)` is what bench/templates.py calls. ``quick`` trains each seed for
`QUICK_EPISODES` episodes (the template's settings otherwise) and evaluates with fewer orders: a smoke
check that the defaults still learn to beat the script, for a test.
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

TEMPLATE = ROOT / "examples" / "research_report.json"
ORDERS = 4
QUICK_ORDERS = 2
QUICK_EPISODES = 256
DIMENSIONS = ("accuracy", "depth", "structure", "readability", "score")


def template(seed: int, episodes: int | None = None) -> dict[str, Any]:
    """The shipped template as a web launch stores it, with only `training.seed` (and for a quick run the
    episode budget) set."""
    doc = json.loads(TEMPLATE.read_text(encoding="utf-8"))
    doc["training"]["seed"] = int(seed)
    if episodes is not None:
        doc["training"]["episodes"] = int(episodes)
    return doc


def judge_team(policy, env, topics: list[str], orders: int) -> dict[str, float]:
    """Mean judge dimensions of `policy` over every topic × `orders` result orders (0 when not accepted)."""
    sums = dict.fromkeys(DIMENSIONS, 0.0)
    accepted = steps = 0
    for t, topic in enumerate(topics):
        for k in range(orders):
            observations, _ = env.reset(seed=1000 * k + t, options={"topic": topic})
            info: dict[str, Any] = {}
            while env.agents:
                observations, _, _, _, infos = env.step(policy(observations))
                info = next(iter(infos.values()), info)
            accepted += bool(info.get("accepted"))
            steps += int(info.get("steps", 0))
            for key in DIMENSIONS:
                sums[key] += float(info.get("scores", {}).get(key, 0.0)) if info.get("accepted") else 0.0
    n = max(1, len(topics) * orders)
    return {k: round(v / n, 4) for k, v in sums.items()} | {
        "accepted": round(accepted / n, 4),
        "steps": round(steps / n, 2),
    }


def train_and_judge(doc: dict[str, Any], run_dir: Path, backbone: Any, orders: int) -> dict[str, Any]:
    """Train `doc` through `training.api.train`, load the checkpoint a deployment would serve, and judge
    it and the scripted team on the train and test topics."""
    from agents.envs.research_report.env import ResearchReportEnv
    from agents.envs.research_report.scripted import ScriptedResearchTeam
    from agents.spec import load_spec
    from serving.model import resolve_checkpoint
    from training import api
    from training.mappo import config_from_spec, trained_team

    shutil.rmtree(run_dir, ignore_errors=True)
    started = time.perf_counter()
    result = api.train(doc, run_dir, backbone=backbone)
    seconds = time.perf_counter() - started
    team = load_spec(doc, require_environment=True)
    trainer = trained_team(team, config_from_spec(team), resolve_checkpoint(run_dir), backbone)
    params = {k: v for k, v in dict(team.environment.params).items() if k not in ("split", "topics")}
    out: dict[str, Any] = {
        "seed": int(doc["training"]["seed"]),
        "status": result.status,
        "episodes": int(result.episodes),
        "train_seconds": round(seconds, 2),
    }
    scripted = ScriptedResearchTeam()
    for split in ("test", "train"):
        env = ResearchReportEnv(**params, split=split)  # results shuffled by the reset seed
        topics = list(env.topic_names)
        out[split] = {
            "trained": judge_team(trainer.policy(greedy=True), env, topics, orders),
            "scripted": judge_team(scripted.actions, env, topics, orders),
            "topics": len(topics),
        }
    return out


def measure_research_report(seeds: list[int], quick: bool) -> dict[str, Any]:
    """The template trained on each seed; medians over seeds of the test-topic judge scores."""
    import torch

    from agents.backbone import Backbone

    torch.set_num_threads(1)
    spec = json.loads(TEMPLATE.read_text(encoding="utf-8"))["backbone"]
    started = time.perf_counter()
    backbone = Backbone.load(spec["model"], pooling=spec["pooling"], max_length=spec["max_length"])
    runs = []
    with tempfile.TemporaryDirectory(prefix="rr-template-") as work:
        for seed in seeds:
            doc = template(seed, QUICK_EPISODES if quick else None)
            run = train_and_judge(doc, Path(work) / f"rr_s{seed}", backbone, QUICK_ORDERS if quick else ORDERS)
            print(f"[template_workflows] research_report seed {seed}: {json.dumps(run)}", file=sys.stderr, flush=True)
            runs.append(run)
    test = [r["test"] for r in runs]
    return {
        "score": statistics.median(r["trained"]["score"] for r in test),
        "scripted_score": statistics.median(r["scripted"]["score"] for r in test),
        "train_score": statistics.median(r["train"]["trained"]["score"] for r in runs),
        "scripted_train_score": statistics.median(r["train"]["scripted"]["score"] for r in runs),
        "test_topics": test[0]["topics"] if test else 0,
        "train_topics": runs[0]["train"]["topics"] if runs else 0,
        "seeds": len(runs),
        "seeds_beating_script": sum(r["trained"]["score"] >= r["scripted"]["score"] for r in test),
        "train_seconds": statistics.median(r["train_seconds"] for r in runs) if runs else 0.0,
        "seconds": round(time.perf_counter() - started, 2),
        "quick": bool(quick),
        "runs": runs,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description="Train the research-report template and judge it on test topics.")
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument("--seeds", type=int, nargs="+", help="training seeds (default 0 1 2 3 4; quick: 0)")
    parser.add_argument("--quick", action="store_true", help=f"one seed, {QUICK_EPISODES} episodes (a test runs this)")
    args = parser.parse_args(argv)
    seeds = args.seeds or ([0] if args.quick else [0, 1, 2, 3, 4])
    started = time.perf_counter()
    result: dict[str, Any] = {"seeds": seeds, "quick": bool(args.quick)}
    result["research_report"] = measure_research_report(seeds, args.quick)
    result["wall_seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).write_text(json.dumps(result, indent=1), encoding="utf-8")
    summary = {k: v for k, v in result["research_report"].items() if k != "runs"}
    print(json.dumps(summary, indent=1), file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
