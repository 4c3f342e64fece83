"""Data-parallel scaling: episodes per second and time to the template's target at 1 and 2 processes.

Each shipped template that trains data-parallel (number guessing: reinforce_comm; customer service:
MAPPO) is trained from
`examples/<template>.json`, defaults untouched but `training.seed`, through torch's elastic launcher
(`training.distributed.launch`, the path a web run with `resources.processes` takes) with 1 and with 2
processes (gloo, one torch thread each), on each seed. Per process count it reports training episodes per
second (the trainer's own clock: start-up excluded), wall seconds of the whole launch (start-up included),
the training seconds and episodes at which the periodic greedy evaluation first reached the target, the
final greedy success, and the per-process cost of one update. The global batch grows with the processes
(each rank plays `training.batch_size` episodes per update), so 2 processes take half as many updates.

    python bench/scaling.py --out FILE.json [--seeds 0 1 2] [--templates number_guessing] [--quick]

Keys are documented in bench/README.md (section bench/scaling.py); the 8-GPU projection built from these figures
is in docs/experiments/2026-12-01-scaling.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

TARGETS = {
    "number_guessing": {"eval_success": 0.99},  # bench/templates.py's success target
    "customer_service": {"val_success": 0.8},  # greedy exact-match share on the validation tickets
}
SKIPPED: dict[str, str] = {}  # templates whose trainer is not data-parallel (none now)
QUICK = {
    "number_guessing": {"episodes": 1280, "eval_every": 640, "eval_episodes": 128, "checkpoint_every": 0},
    # a short MAPPO run: a smaller warm start, 256 episodes (8 updates of 32 on one process, 4 of 2 × 32)
    "customer_service": {"episodes": 256, "eval_every": 128, "eval_episodes": 50},
}
QUICK_START = {"customer_service": {"warm_start_episodes": 300, "reader_epochs": 100}}
"""--quick: the smaller warm start (`environment.params`) of those short runs."""


def is_training_metrics(payload: dict) -> bool:
    """A trainer's per-update metrics (not an evaluation's or the golden-range report's)."""
    return "loss" in payload or "policy_loss" in payload


def trainable_parameters(run_dir: Path) -> int:
    """Parameters of the networks the optimiser steps (what each update all-reduces)."""
    from training.checkpoint import latest_checkpoint, load_tensors

    mappo = run_dir / "checkpoints" / "mappo" / "last" / "model.safetensors"
    if mappo.is_file():
        from safetensors.torch import load_file

        nets = ("actor.", "critic.", "q_critic.")
        return sum(t.numel() for k, t in load_file(str(mappo)).items() if k.startswith(nets))
    checkpoint = latest_checkpoint(run_dir / "checkpoints")
    return sum(
        t.numel()
        for name in ("heads", "comm")
        for t in load_tensors(checkpoint / f"{name}.safetensors").values()
    )


def one_run(template: str, seed: int, processes: int, work: Path, quick: bool) -> dict:
    """Train `template` on `processes` ranks; the figures of that launch."""
    from training.distributed import launch

    doc = json.loads((ROOT / "examples" / f"{template}.json").read_text())
    doc["training"]["seed"] = seed
    if quick:
        doc["training"].update(QUICK[template])
        doc["environment"]["params"].update(QUICK_START.get(template, {}))
    doc["training"]["checkpoint_every"] = 0  # the final checkpoint only: the bench times training
    doc["resources"] = {"processes": processes}
    target = TARGETS[template]
    events: list[dict] = []
    started = time.perf_counter()
    run_dir = work / f"{template}-s{seed}-p{processes}"
    result = launch(doc, run_dir, processes, on_event=events.append, max_restarts=0)
    wall = time.perf_counter() - started
    train_seconds, reached = 0.0, None
    for event in events:
        payload = event["payload"]
        if event["type"] == "metrics" and is_training_metrics(payload):
            # reinforce_comm reports its clock; MAPPO each update's seconds (the ranks' mean)
            train_seconds = (
                payload["seconds"] if "seconds" in payload else train_seconds + payload["update_seconds"]
            )
        if (
            reached is None
            and event["type"] == "metrics"
            and all((payload.get(k) or 0) >= v for k, v in target.items())
        ):
            reached = {"episode": payload["episode"], "seconds": train_seconds}
    updates, seconds = result["updates"], result["seconds"]
    params = trainable_parameters(run_dir)
    rank_rates = [
        [v for k, v in e["payload"].items() if k.startswith("rank") and k.endswith("_episodes_per_second")]
        for e in events
        if e["type"] == "metrics" and is_training_metrics(e["payload"])
    ]
    return {
        "episodes": result["episodes"],
        "updates": updates,
        "seconds": round(seconds, 3),
        "wall_seconds": round(wall, 2),
        "eps": round(result["episodes"] / seconds, 1),
        "update_ms": round(1000 * seconds / max(updates, 1), 3),
        "final_success": result["metrics"].get("val_success", result["metrics"].get("success")),
        "target_episode": reached["episode"] if reached else None,
        "target_seconds": round(reached["seconds"], 3) if reached else None,
        "rank_eps": [round(statistics.median(r[i] for r in rank_rates), 1) for i in range(len(rank_rates[0]))]
        if rank_rates and rank_rates[0]
        else [],
        "trainable_parameters": params,
        "load_average_1min": round(os.getloadavg()[0], 2),  # other work on the machine skews the rates
    }


def allreduce_probe(out: Path, numel: int, repeats: int = 200) -> None:
    """Inside a 2-rank launch: the median time of one sum of `numel` floats (the gradients) over the
    ranks, through gloo's all-reduce and through the shared memory the trainers use on one machine."""
    import torch
    import torch.distributed as dist

    from training.distributed import join, leave

    torch.set_num_threads(1)
    group = join("cpu")
    buffer = torch.ones(numel)
    ways = {"gloo": lambda: dist.all_reduce(buffer)}
    if group.local_sum is not None:
        ways["shared"] = lambda: group.local_sum.sum(buffer)
    medians = {}
    for way, reduce in ways.items():
        times = []
        for _ in range(repeats):
            dist.barrier()
            started = time.perf_counter()
            reduce()
            times.append(time.perf_counter() - started)
        medians[way] = 1000 * statistics.median(times[repeats // 10 :])
    if group.is_main:
        out.write_text(json.dumps(medians))
    leave(group)


def allreduce_ms(numel: int, work: Path) -> dict[str, float]:
    """One gradient sum between 2 ranks on this machine (ms, median): {"gloo": …, "shared": …}."""
    import subprocess

    out = work / "allreduce.json"
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2"]
    cmd += [str(Path(__file__).resolve()), "--allreduce-probe", str(out), "--numel", str(numel)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run(cmd, check=True, capture_output=True, timeout=300, env=env)
    return {way: round(ms, 3) for way, ms in json.loads(out.read_text()).items()}


def median_or_none(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 3) if values else None


def template_figures(template: str, seeds: list[int], quick: bool, work: Path) -> dict:
    runs: dict[int, dict[int, dict]] = {1: {}, 2: {}}
    for seed in seeds:
        for processes in (1, 2):  # side by side, seed by seed: both see the same machine load
            runs[processes][seed] = one_run(template, seed, processes, work, quick)
            print(
                f"{template} seed {seed} p{processes}: {runs[processes][seed]}", file=sys.stderr, flush=True
            )
    eps = {p: median_or_none([r["eps"] for r in runs[p].values()]) for p in runs}
    figures = {
        "eps_1": eps[1],
        "eps_2": eps[2],
        "speedup_2": round(eps[2] / eps[1], 3) if eps[1] and eps[2] else None,
        "target": TARGETS[template],
        "seeds": seeds,
    }
    for p in runs:
        figures[f"seconds_to_target_{p}"] = median_or_none([r["target_seconds"] for r in runs[p].values()])
        figures[f"episodes_to_target_{p}"] = median_or_none([r["target_episode"] for r in runs[p].values()])
        figures[f"reached_target_{p}"] = sum(r["target_seconds"] is not None for r in runs[p].values())
        figures[f"final_success_{p}"] = [r["final_success"] for r in runs[p].values()]
        figures[f"update_ms_{p}"] = median_or_none([r["update_ms"] for r in runs[p].values()])
        figures[f"wall_seconds_{p}"] = median_or_none([r["wall_seconds"] for r in runs[p].values()])
    figures["gradient_bytes"] = 4 * next(iter(runs[1].values()))["trainable_parameters"]
    reduce_ms = allreduce_ms(figures["gradient_bytes"] // 4, work)
    figures["allreduce_ms_gloo_2"] = reduce_ms["gloo"]
    figures["allreduce_ms_shared_2"] = reduce_ms.get("shared")  # what the ranks use on one machine
    figures["runs"] = {f"p{p}": {str(s): r for s, r in runs[p].items()} for p in runs}
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--templates", nargs="+", default=["number_guessing", "customer_service"])
    parser.add_argument("--quick", action="store_true", help="1 seed, a short budget: a smoke run")
    parser.add_argument("--allreduce-probe", type=Path, help=argparse.SUPPRESS)  # inside the probe's ranks
    parser.add_argument("--numel", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.allreduce_probe:
        allreduce_probe(args.allreduce_probe, args.numel)
        return 0
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MASE_TORCH_THREADS", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.out is None:
        parser.error("--out FILE.json is required")
    seeds = args.seeds[:1] if args.quick else args.seeds
    started = time.perf_counter()
    scaling: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="mase-scaling-") as tmp:
        for template in args.templates:
            if template in SKIPPED:
                scaling[template] = {"skipped": SKIPPED[template]}
            elif template in TARGETS:
                scaling[template] = template_figures(template, seeds, args.quick, Path(tmp))
            else:
                parser.error(f"no scaling recipe for template {template!r}; choose from {sorted(TARGETS)}")
    report = {
        "quick": args.quick,
        "machine": {"cpus": os.cpu_count(), "torch_threads_per_process": 1, "backend": "gloo"},
        "scaling": scaling,
        "seconds": round(time.perf_counter() - started, 1),
    }
    args.out.write_text(json.dumps(report, indent=1))
    print(json.dumps({t: {k: v for k, v in f.items() if k != "runs"} for t, f in scaling.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
