"""The interactive support workflow, arm by arm on the same customers: the scripted procedures (each named
one and the best of the grid, chosen on dev customers), behaviour cloning of the best, and the shipped
template trained with IPPO and with MAPPO through `training.api.train`, per seed.

    python bench/interactive_support.py --out F.json [--quick] [--seeds 0 1] [--train-episodes 2560]
        [--eval-episodes 500] [--runs DIR]   # DIR/<algorithm>-s<seed>: a run there is reused, else trained
        [--rules grid|shipped] [--algorithms ippo mappo] [--world basic|uncertain]
        [--training KEY=VALUE ...]   # the template's training options for this run (VALUE read as JSON)

``--rules shipped`` skips the search over the grid and uses the procedure it chose last for the world
(`baselines.SHIPPED`, recorded with the grid's figures in the study); ``--world`` sets the environment's
``world`` param for every arm (rules, imitation, training: `world.WORLDS`); the rules arms have no randomness, so they are played once and
their figures repeated for every seed.

Every arm plays the same `--eval-episodes` customers of the training families (fresh seeds, never the dev
ones a procedure was chosen on) and as many of the held-out families. Keys: `bench/README.md`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from agents.envs.interactive_support.baselines import (  # noqa: E402
    NAMED,
    SHIPPED,
    choose_on_dev,
    clone,
    compare_arms,
    decision_differences,
    grid,
)
from agents.spec import load_spec  # noqa: E402
from training.api import train  # noqa: E402
from training.mappo.from_spec import load_policy  # noqa: E402

TEMPLATE = ROOT / "examples" / "interactive_support.json"
TEMPLATE_CLONE_EPISODES = json.loads(TEMPLATE.read_text())["training"].get("teacher_clone_episodes", 0)
SUMMARY_KEYS = ("resolution", "satisfaction", "escalations", "cost", "heldout_resolution", "return")


def trained_policy(
    run_dir: Path,
    algorithm: str,
    seed: int,
    episodes: int,
    world: str = "basic",
    training: dict[str, Any] | None = None,
) -> tuple[Any, float]:
    """The best checkpoint of the template trained with ``algorithm`` and ``seed`` (and the ``training``
    options given) in ``run_dir`` (trained now unless a finished run is there), greedy; and the training
    seconds (0 when reused)."""
    best = run_dir / "checkpoints" / "mappo" / "best"
    seconds = 0.0
    if not (best / "state.json").is_file():
        spec = json.loads(TEMPLATE.read_text())
        spec["training"].update(training or {}, algorithm=algorithm, seed=seed)
        spec["environment"]["params"]["world"] = world
        started = time.perf_counter()
        train(spec, run_dir, episodes=episodes, resume=False)
        seconds = time.perf_counter() - started
    team = load_spec(run_dir / "spec.json", require_environment=True)
    return load_policy(team, best, backbone=None).policy(greedy=True), seconds


def summarise(per_seed: dict[int, dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    """Each arm's mean over seeds of the summary keys."""
    arms = next(iter(per_seed.values())).keys()
    return {
        arm: {k: statistics.fmean(per_seed[s][arm][k] for s in per_seed) for k in SUMMARY_KEYS}
        for arm in arms
    }


def targets(per_seed: dict[int, dict[str, dict[str, float]]]) -> dict[str, Any]:
    """The issue's target per seed: MAPPO ≥ the best of rules and imitation + 10 points of resolution (on
    the evaluation customers) at no higher cost."""
    rows = {}
    for seed, arms in per_seed.items():
        base = max(("best_rules", "imitation"), key=lambda a: arms[a]["resolution"])
        gain = arms["mappo"]["resolution"] - arms[base]["resolution"]
        cheaper = arms["mappo"]["cost"] <= arms[base]["cost"]
        rows[seed] = {"against": base, "resolution_gain": gain, "no_higher_cost": cheaper,
                      "met": gain >= 0.10 and cheaper}  # fmt: skip
    return {"seeds": rows, "met": sum(r["met"] for r in rows.values()), "of": len(rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true", help="a smoke run (a few episodes; never a figure)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--train-episodes", type=int, default=None, help="default: the template's")
    parser.add_argument("--eval-episodes", type=int, default=500)
    parser.add_argument("--dev-episodes", type=int, default=400)
    parser.add_argument("--runs", default=None, help="where the trained runs live (default: next to --out)")
    parser.add_argument("--rules", choices=("grid", "shipped"), default="grid")
    parser.add_argument("--algorithms", nargs="+", choices=("ippo", "mappo"), default=["ippo", "mappo"])
    parser.add_argument("--world", choices=tuple(SHIPPED), default="basic", help="the environment's world")
    parser.add_argument("--training", nargs="+", default=[], metavar="KEY=VALUE", help="training options")
    args = parser.parse_args()
    training = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.training)}
    if args.quick:  # a smoke run clones the teacher from as few episodes as the imitation arm's
        training.setdefault("teacher_clone_episodes", min(100, TEMPLATE_CLONE_EPISODES))
    torch.set_num_threads(1)  # many small networks: threads only contend on a shared machine
    quick = args.quick
    eval_episodes = 20 if quick else args.eval_episodes
    train_episodes = (
        64 if quick else args.train_episodes or json.loads(TEMPLATE.read_text())["training"]["episodes"]
    )
    seeds = args.seeds[:1] if quick else args.seeds
    runs = Path(args.runs) if args.runs else Path(args.out).with_suffix("") / "runs"

    started = time.perf_counter()
    params = {"world": args.world}
    if args.rules == "shipped":
        chosen, rows = SHIPPED[args.world], []
    else:
        chosen, rows = choose_on_dev(
            list(NAMED.values()) if quick else grid(args.world), 20 if quick else args.dev_episodes, params
        )
    rules = {f"rules:{name}": procedure for name, procedure in NAMED.items()}
    scripted = compare_arms({**rules, "best_rules": chosen}, eval_episodes, params=params)  # deterministic
    per_seed: dict[int, dict[str, dict[str, float]]] = {}
    seconds: dict[str, dict[int, float]] = {a: {} for a in args.algorithms}
    differences: dict[int, Any] = {}
    for seed in seeds:
        arms: dict[str, Any] = {
            "imitation": clone(
                chosen, episodes=100 if quick else 2000, epochs=5 if quick else 40, seed=seed, params=params
            )
        }
        for algorithm in args.algorithms:
            arms[algorithm], seconds[algorithm][seed] = trained_policy(
                runs / f"{algorithm}-s{seed}", algorithm, seed, train_episodes, args.world, training
            )
        per_seed[seed] = {**scripted, **compare_arms(arms, eval_episodes, params=params)}
        if "mappo" in arms:
            differences[seed] = decision_differences(
                arms["mappo"], chosen, episodes=eval_episodes, params=params
            )
    result = {
        "interactive_support": {
            "world": args.world,
            "best_rules": chosen.name,
            "best_rules_is_shipped": chosen == SHIPPED[args.world],
            "rules_grid": sorted(rows, key=lambda r: -r["return"])[:20],
            "arms": summarise(per_seed),
            "seeds": {str(s): v for s, v in per_seed.items()},
            "targets": targets(per_seed) if "mappo" in args.algorithms else None,
            "differences": {str(s): v for s, v in differences.items()},
            "train_seconds": seconds,
            "train_episodes": train_episodes,
            "training": training,
            "eval_episodes": eval_episodes,
            "seconds": time.perf_counter() - started,
        }
    }
    Path(args.out).write_text(json.dumps(result, indent=1, default=str))
    print(json.dumps(result["interactive_support"]["arms"], indent=1))
    print(json.dumps(result["interactive_support"]["targets"], indent=1, default=str))


if __name__ == "__main__":
    main()
