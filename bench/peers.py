"""MASE beside a peer library on standard tasks: MAPPO and IPPO on PettingZoo's Multi-Particle tasks
(`mpe2`: simple_spread, simple_reference, simple_speaker_listener), MASE's trainers against BenchMARL's,
at the same number of environment frames, on the same seeds, in one run.

    python bench/peers.py --out FILE.json [--frames 12000] [--seeds 0] [--tasks simple_spread ...]
                          [--jobs 4] [--comm] [--quick] [--no-peers] [--venv DIR]

Each arm-run is its own process (one torch thread), `--jobs` of them at a time, so arms of a task run side
by side under the same machine load. BenchMARL runs in a separate virtualenv that the script makes on
first use (`--venv`, default var/peers/venv, git-ignored): torch==2.13.0 first (the same build as the
project's), then benchmarl, torchrl (the newest release whose pins admit that torch), mpe2 and matplotlib
with torch held by a constraint; `bench/peers_benchmarl.py` is its driver. BenchMARL keeps its own default
experiment, algorithm and model configs; only the frame budget, discrete actions, the episode length and
an evaluation per collected batch are set. MASE's arms use `MappoTrainer` with the vector-observation path
(`training.mappo.vector_features`), policy sharing "shared" (BenchMARL's default too), no communication
(`--comm` adds `mase_mappo_comm`, MASE's learned attention communication, on the communication tasks).

Both libraries evaluate 10 greedy episodes after every `--eval-frames` frames (BenchMARL's collected
batch: 6000 frames by its defaults); a return is the per-agent episode reward sum, averaged over agents
and episodes. `--quick` trains MASE's arms only (no virtualenv needed), on simple_spread, with a small
budget. Keys are documented in bench/README.md (section bench/peers.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

TASKS = ("simple_spread", "simple_reference", "simple_speaker_listener")
COMM_TASKS = ("simple_reference", "simple_speaker_listener")
DEFAULT_VENV = ROOT / "var" / "peers" / "venv"
PEER_PACKAGES = ("benchmarl==1.5.2", "torchrl", "mpe2==1.1.1", "matplotlib")
TORCH = "torch==2.13.0"
MASE_SETTINGS = {"episodes_per_update": 20, "epochs": 4, "minibatches": 2, "lr": 3e-3, "hidden": 64}
EVAL_EPISODES = 10
QUICK = {"frames": 6000, "eval_frames": 1500, "tasks": ["simple_spread"], "seeds": [0]}


# ---- one MASE arm-run (in its own process: `--arm-worker`) -----------------------------------------------
def mase_worker(task: str, algorithm: str, comm: bool, frames: int, eval_frames: int, seed: int, out: str):
    import torch

    torch.set_num_threads(1)
    from agents.envs import make_env
    from training.mappo.config import MappoConfig
    from training.mappo.trainer import MappoTeam, MappoTrainer
    from training.mappo.vector_features import VectorFeaturizer

    params = {"task": task, "max_cycles": 25}
    per_update = MASE_SETTINGS["episodes_per_update"] * params["max_cycles"]
    updates = max(1, frames // per_update)
    cfg = MappoConfig(
        algorithm=algorithm,
        comm=comm,
        sharing="shared",
        updates=updates,
        eval_every=0,
        checkpoint_every=0,
        seed=seed,
        **MASE_SETTINGS,
    )
    trainer = MappoTrainer(
        cfg, MappoTeam(lambda split: make_env("mpe", params), featurizer=VectorFeaturizer())
    )
    curve = [{"frames": 0, "return": trainer.evaluate(episodes=EVAL_EPISODES)["return"], "seconds": 0.0}]
    start, done, next_eval = time.perf_counter(), 0, eval_frames
    while trainer.update_index < updates:
        batch, _ = trainer.collect()
        trainer.update(batch)
        trainer.update_index += 1
        done += int(batch.obs.shape[0])
        if done >= next_eval or trainer.update_index == updates:
            ret = trainer.evaluate(episodes=EVAL_EPISODES)["return"]
            curve.append({"frames": done, "return": ret, "seconds": time.perf_counter() - start})
            next_eval += eval_frames
    Path(out).write_text(json.dumps({"frames": done, "seconds": time.perf_counter() - start, "curve": curve}))


# ---- the peer's virtualenv -------------------------------------------------------------------------------
def ensure_venv(venv: Path, log) -> Path:
    """The peer virtualenv's python, made on first use (torch first, then BenchMARL with torch held)."""
    python = venv / "bin" / "python"
    marker = venv / "mase-peers-ready"
    if marker.is_file():
        return python
    venv.parent.mkdir(parents=True, exist_ok=True)
    if not python.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    log(f"peer virtualenv {venv}: {TORCH} first")
    subprocess.run([*pip, TORCH], check=True)
    constraints = venv / "constraints.txt"
    constraints.write_text(TORCH + "\n")
    log(f"peer virtualenv: {' '.join(PEER_PACKAGES)} (torch held at {TORCH})")
    subprocess.run([*pip, "-c", str(constraints), *PEER_PACKAGES], check=True)
    marker.write_text(peer_versions(python) + "\n")
    return python


def peer_versions(python: Path) -> str:
    code = (
        "import importlib.metadata as m;"
        "print(' '.join(f'{p}=={m.version(p)}' for p in ('torch','torchrl','tensordict','benchmarl','mpe2','pettingzoo')))"
    )
    return subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


# ---- running the arms ------------------------------------------------------------------------------------
def run_arm(job: dict, python: Path | None, work: Path, eval_frames: int) -> dict:
    out = work / f"{job['task']}-{job['arm']}-s{job['seed']}.json"
    if job["arm"].startswith("benchmarl_"):
        cmd = [str(python), str(ROOT / "bench" / "peers_benchmarl.py"), "--task", job["task"]]
        cmd += ["--algorithm", job["arm"].split("_")[1], "--frames", str(job["frames"])]
        cmd += ["--seed", str(job["seed"]), "--out", str(out)]
    else:
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--arm-worker",
            json.dumps({**job, "out": str(out)}),
        ]
        cmd += ["--eval-frames", str(eval_frames)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0 or not out.is_file():
        return {"error": (proc.stderr or proc.stdout)[-1500:]}
    return json.loads(out.read_text())


def summarise(runs: list[dict]) -> dict:
    """An arm's figures over its seeds: final return (mean, sd), frames, frames per second, seconds, curve."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return {"error": runs[0]["error"] if runs else "no run"}
    finals = [r["curve"][-1]["return"] for r in ok]
    seconds = statistics.mean(r["seconds"] for r in ok)
    frames = int(statistics.mean(r["frames"] for r in ok))
    points = sorted({p["frames"] for r in ok for p in r["curve"]})
    curve = []
    for f in points:
        at = [p for r in ok for p in r["curve"] if p["frames"] == f]
        if len(at) == len(ok):  # a point every seed reached
            curve.append(
                {
                    "frames": f,
                    "return": statistics.mean(p["return"] for p in at),
                    "seconds": statistics.mean(p["seconds"] for p in at),
                }
            )
    return {
        "final_return": statistics.mean(finals),
        "return_sd": statistics.stdev(finals) if len(finals) > 1 else 0.0,
        "frames": frames,
        "frames_per_second": frames / seconds if seconds > 0 else None,
        "seconds": seconds,
        "seeds": len(ok),
        "curve": curve,
        **({"failed_seeds": len(runs) - len(ok)} if len(ok) < len(runs) else {}),
    }


def seconds_to_reach(curve: list[dict], target: float) -> float | None:
    """Wall seconds at the first evaluation whose return reached `target` (None: never in this run)."""
    for point in curve:
        if point["frames"] > 0 and point["return"] >= target:
            return point["seconds"]
    return None


def compare(task_result: dict) -> None:
    """Each MASE arm against the peer of its algorithm: time to the peer's final return, the ratios."""
    for arm, figures in task_result.items():
        if not arm.startswith("mase_") or "error" in figures:
            continue
        peer = task_result.get("benchmarl_" + ("ippo" if "ippo" in arm else "mappo"))
        if not peer or "error" in peer:
            continue
        figures["peer_final_return"] = peer["final_return"]
        figures["seconds_to_peer_final"] = seconds_to_reach(figures["curve"], peer["final_return"])
        figures["peer_seconds_to_final"] = seconds_to_reach(peer["curve"], peer["final_return"])
        figures["beats_peer"] = figures["final_return"] >= peer["final_return"] - max(
            figures["return_sd"], peer["return_sd"]
        )
        if figures.get("frames_per_second") and peer.get("frames_per_second"):
            figures["fps_ratio"] = figures["frames_per_second"] / peer["frames_per_second"]


def plot(result: dict, path: Path) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    tasks = list(result["tasks"])
    fig, axes = plt.subplots(1, len(tasks), figsize=(5 * len(tasks), 4), squeeze=False)
    for ax, task in zip(axes[0], tasks, strict=True):
        for arm, figures in result["tasks"][task].items():
            if "curve" in figures:
                ax.plot(
                    [p["frames"] for p in figures["curve"]],
                    [p["return"] for p in figures["curve"]],
                    "o-",
                    label=arm,
                )
        ax.set_title(task)
        ax.set_xlabel("environment frames")
        ax.set_ylabel("mean evaluation return")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return str(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=False)
    ap.add_argument("--frames", type=int, default=12000)
    ap.add_argument("--eval-frames", type=int, default=6000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--comm", action="store_true", help="add mase_mappo_comm on the communication tasks")
    ap.add_argument("--no-peers", action="store_true", help="MASE's arms only (no BenchMARL virtualenv)")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--venv", type=Path, default=DEFAULT_VENV)
    ap.add_argument("--arm-worker", help=argparse.SUPPRESS)
    ap.add_argument(
        "--plot-from", type=Path, help=argparse.SUPPRESS
    )  # in the peer venv, which has matplotlib
    args = ap.parse_args()
    if args.plot_from:
        print(plot(json.loads(args.plot_from.read_text()), args.plot_from.with_suffix(".png")) or "")
        return
    if args.arm_worker:
        job = json.loads(args.arm_worker)
        algorithm = "ippo" if job["arm"] == "mase_ippo" else "mappo"
        mase_worker(
            job["task"],
            algorithm,
            job["arm"] == "mase_mappo_comm",
            job["frames"],
            args.eval_frames,
            job["seed"],
            job["out"],
        )
        return
    if not args.out:
        ap.error("--out is required")
    if args.quick:
        args.frames, args.eval_frames, args.tasks, args.seeds = (
            QUICK[k] for k in ("frames", "eval_frames", "tasks", "seeds")
        )
    peers = not (args.quick or args.no_peers)

    def log(message: str) -> None:
        print(f"[peers] {message}", file=sys.stderr, flush=True)

    python = ensure_venv(args.venv, log) if peers else None
    arms = ["mase_mappo", "mase_ippo"] + (["benchmarl_mappo", "benchmarl_ippo"] if peers else [])
    jobs = [
        {"task": t, "arm": a, "seed": s, "frames": args.frames}
        for t in args.tasks
        for a in arms + (["mase_mappo_comm"] if args.comm and t in COMM_TASKS else [])
        for s in args.seeds
    ]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="mase-peers-") as tmp, ThreadPoolExecutor(args.jobs) as pool:
        outs = list(pool.map(lambda j: run_arm(j, python, Path(tmp), args.eval_frames), jobs))
    result: dict = {
        "frames": args.frames,
        "seeds": args.seeds,
        "eval_frames": args.eval_frames,
        "eval_episodes": EVAL_EPISODES,
        "quick": args.quick,
        "peers": peers,
        "peer_versions": (args.venv / "mase-peers-ready").read_text().strip() if peers else None,
        "mase_settings": MASE_SETTINGS,
        "jobs": args.jobs,
        "tasks": {},
    }
    for task in args.tasks:
        task_arms = {j["arm"] for j in jobs if j["task"] == task}
        result["tasks"][task] = {
            arm: summarise(
                [o for j, o in zip(jobs, outs, strict=True) if j["task"] == task and j["arm"] == arm]
            )
            for arm in sorted(task_arms)
        }
        compare(result["tasks"][task])
    result["wall_seconds"] = time.perf_counter() - started
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    result["plot"] = plot(result, out.with_suffix(".png"))
    out.write_text(json.dumps(result, indent=2))
    if result["plot"] is None and python is not None:  # no matplotlib here: the peer venv draws it
        drawn = subprocess.run(
            [str(python), __file__, "--plot-from", str(out)], capture_output=True, text=True, check=False
        )
        result["plot"] = drawn.stdout.strip() or None
        out.write_text(json.dumps(result, indent=2))
    for task, arms_ in result["tasks"].items():
        for arm, f in arms_.items():
            if "error" in f:
                log(f"{task} {arm}: FAILED {f['error'][-300:]}")
            else:
                log(
                    f"{task} {arm}: final {f['final_return']:.2f} ± {f['return_sd']:.2f}, "
                    f"{f['frames']} frames, {f['frames_per_second']:.0f} fps, {f['seconds']:.0f} s"
                )


if __name__ == "__main__":
    main()
