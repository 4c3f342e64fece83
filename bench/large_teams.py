"""Large teams: learned bidders against the library's fixed auction, a central router and round-robin, at 20, 50
and 100 agents; gossip against a central controller in the running environment; what a team keeps when one of its
skilled agents goes offline.

Per team size N the team is `examples/large_team.json` with N agents (`scaled_groups`: four groups of specialists
and a fifth of generalists), trained through the product path (`training.api.train`, MAPPO with one shared bidding
policy) with the failure of one specialist in the spec's fault schedule; `train_seconds` is that call's wall time.
The trained policy then bids greedily on held-out task streams (the same seeds for every arm), and the other arms
play the same streams with their own allocation. `messages_ratio` is gossip's messages ÷ the controller's in two
runs of the learned team on the same streams (the environment counts both). Failure: the same streams with
``guides_0`` offline from task ``FAULT_AT``; `in_time_after` is the share of the next 100 tasks done in time, `kept`
its ratio to the same window without the fault, and `respread` who took the failed agent's kind of task in that
window (share per group) against the same window without it. `failure_group`: the same with half of the guides
offline from the same task. Storm: ``generalists_0`` floods the team from task `STORM` on, with the reputation
defence and without it (`storm_defence: none`), every arm on the same streams.

    python bench/large_teams.py --out FILE.json [--quick] [--sizes 20 50 100] [--episodes 320 240 160]

Keys are documented in bench/README.md (section bench/large_teams.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

ARMS = ("learned", "fixed_auction", "central", "round_robin", "rules")  # rules: the teacher's bidders
FAULT_AT = 50
FAILED = "guides_0"
STORMER, STORM = "generalists_0", "20-120"


def team_doc(n: int, episodes: int, batch_size: int, max_steps: int) -> dict:
    """The gallery template at N agents, with the specialist's failure in its fault schedule."""
    from agents.envs.large_team import scaled_groups

    doc = json.loads((ROOT / "examples" / "large_team.json").read_text())
    groups = scaled_groups(n)
    doc["agents"] = [dict(doc["agents"][i], id=line.split("*")[0]) for i, line in enumerate(groups)]
    doc["environment"]["params"] |= {
        "groups": groups,
        "max_steps": max_steps,
        "fault_schedule": [f"{FAILED}@{min(FAULT_AT, max_steps // 2)}"],
    }
    doc["training"] |= {
        "episodes": episodes,
        "batch_size": batch_size,
        "eval_every": episodes,
        "eval_episodes": 4,
        "checkpoint_every": episodes,
    }
    return doc


def play(params: dict, seed: int, act=None) -> dict:
    """One episode of the environment with ``params``; ``act`` bids (None: everybody passes). The last info,
    plus each task's kind and the group of its winner (None: dropped) under ``winners``."""
    from agents.envs import make_env

    env = make_env("large_team", params)
    observations, _ = env.reset(seed=seed)
    info: dict = {}
    while env.agents:
        actions = act(observations) if act is not None else dict.fromkeys(env.agents, 0)
        observations, _, _, _, infos = env.step(actions)
        info = next(iter(infos.values()), info)
    groups = [env.group_of[a] for a in env.possible_agents]
    info["reputation_end"] = dict(zip(env.possible_agents, map(float, env.reputations()), strict=True))
    info["winners"] = [
        (a["kind"], groups[a["winner"]] if a["winner"] is not None else None) for a in env.allocations
    ]
    return info


def respread(runs: list[dict], kind: str, start: int) -> dict[str, float]:
    """Who took the tasks of ``kind`` among tasks start … start+99: the share per group (and dropped)."""
    taken = [
        group or "dropped" for run in runs for k, group in run["winners"][start : start + 100] if k == kind
    ]
    return {g: round(taken.count(g) / len(taken), 3) for g in sorted(set(taken))} if taken else {}


def mean(runs: list[dict], key: str) -> float:
    return float(statistics.fmean(r[key] for r in runs))


def measure(n: int, args: argparse.Namespace, episodes: int, scratch: Path) -> dict:
    """Train the learned bidders at N agents, then play every arm on the same held-out streams."""
    from agents.envs.large_team.scripted import RuleBidders
    from agents.spec import load_spec
    from training import api
    from training.mappo.from_spec import load_policy

    doc = team_doc(n, episodes, args.batch_size, args.train_steps or args.max_steps)
    started, cpu = time.perf_counter(), time.process_time()
    result = api.train(doc, scratch / f"n{n}", resume=False)
    train_seconds, train_cpu = time.perf_counter() - started, time.process_time() - cpu
    team = load_spec(doc, require_environment=True)
    act = load_policy(team, scratch / f"n{n}" / "checkpoints" / "mappo" / "last", None).policy(greedy=True)
    base = {**dict(team.environment.params), "fault_schedule": [], "max_steps": args.max_steps}
    seeds = [10_000 + s for s in range(args.eval_seeds)]

    bidders = {"learned": act, "rules": RuleBidders(base).actions}

    def arm(name: str, extra: dict | None = None) -> list[dict]:
        allocation = "auction" if name in bidders else name
        params = {**base, "allocation": allocation, **(extra or {})}
        return [play(params, seed, bidders.get(name)) for seed in seeds]

    figures: dict = {"train_seconds": round(train_seconds, 1), "train_episodes": episodes}
    figures["train_cpu_seconds"] = round(train_cpu, 1)  # this process's CPU: apart from the others' load
    figures["train_status"] = result.status
    clean = {name: arm(name) for name in ARMS}
    for name, runs in clean.items():
        figures[name] = {k: round(mean(runs, k), 4) for k in ("in_time", "mean_wait", "p95_wait", "dropped")}
    central_sync = arm("learned", {"state_sync": "central"})
    gossip = clean["learned"]
    figures["messages_ratio"] = round(
        sum(r["messages"] for r in gossip) / sum(r["messages"] for r in central_sync), 4
    )
    figures["gossip"] = {
        "messages": mean(gossip, "messages"),
        "central_messages": mean(central_sync, "messages"),
        "rounds_p95": max(r["rounds_p95"] or 0.0 for r in gossip),
        "rounds_bound": round(gossip[0]["rounds_bound"], 2),
        "quota_hits": mean(gossip, "quota_hits"),
        "anti_entropy_runs": mean(gossip, "anti_entropy_runs"),
        "in_time_with_central_state": round(mean(central_sync, "in_time"), 4),
    }
    fault_at = min(FAULT_AT, args.max_steps // 2)
    guides = [a for a in team.environment.params["groups"] if a.startswith("guides*")][0]
    half = [f"guides_{i}" for i in range(max(1, int(guides.split("*")[1].split(":")[0]) // 2))]
    for key, agents in (("failure", [FAILED]), ("failure_group", half)):
        figures[key] = {"agents": agents, "at_task": fault_at}
        for name in ("learned", "fixed_auction", "central", "rules"):
            failed = arm(name, {"fault_schedule": [f"{a}@{fault_at}" for a in agents]})
            window = [window_in_time(r, fault_at, args.max_steps) for r in clean[name]]
            after = mean(failed, "in_time_after")
            same = float(statistics.fmean(window))
            figures[key][name] = {
                "in_time_after": round(after, 4),
                "in_time_same_window_no_fault": round(same, 4),
                "kept": round(after / same, 4) if same else None,
                "load_spread": round(mean(failed, "load_spread"), 4),
                "respread": respread(failed, "presales", fault_at),
                "respread_no_fault": respread(clean[name], "presales", fault_at),
            }
    figures["storm"] = {"agent": STORMER, "tasks": STORM}
    for name in ("learned", "fixed_auction", "central"):
        storm = {"fault_schedule": [f"{STORMER}@{STORM} storm"]}
        defended, open_ = arm(name, storm), arm(name, {**storm, "storm_defence": "none"})
        figures["storm"][name] = {
            "in_time_defended": round(mean(defended, "in_time"), 4),
            "in_time_undefended": round(mean(open_, "in_time"), 4),
            "in_time_no_storm": figures[name]["in_time"],
            "storms": mean(defended, "storms"),
            "throttled": mean(defended, "throttled"),
            "reputation_lowest": round(mean(defended, "reputation_lowest"), 4),
            "reputation_end": round(
                float(statistics.fmean(r["reputation_end"][STORMER] for r in defended)), 4
            ),
        }
    figures["storm"]["false_storms"] = sum(r["storms"] for runs in clean.values() for r in runs)
    return figures


def window_in_time(run: dict, start: int, max_steps: int) -> float:
    """The share of tasks start … start+99 done in time in a run without a fault (from its per-task flags)."""
    flags = run["in_time_flags"][start : start + 100]
    return float(sum(flags) / len(flags)) if flags else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--quick", action="store_true", help="10 agents, a few episodes: a smoke test, never a figure"
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 50, 100])
    parser.add_argument(
        "--episodes", type=int, nargs="+", default=[320, 240, 160], help="training episodes per size"
    )
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--max-steps", type=int, default=200)
    parser.add_argument("--eval-seeds", type=int, default=5)
    parser.add_argument(
        "--train-steps", type=int, default=0, help="tasks per training episode (0: --max-steps)"
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.episodes, args.batch_size, args.max_steps, args.eval_seeds = [10], [8], 4, 60, 2
    import torch

    torch.set_num_threads(
        1
    )  # two threads on the shared 2-core machine make each small op spin for milliseconds
    episodes = dict(zip(args.sizes, args.episodes + args.episodes[-1:] * len(args.sizes), strict=False))
    started = time.perf_counter()
    doc: dict = {"quick": args.quick, "large_teams": {}, "settings": vars(args) | {"fault_at": FAULT_AT}}
    with tempfile.TemporaryDirectory(prefix="mase-large-teams-") as scratch:
        for n in args.sizes:
            doc["large_teams"][str(n)] = measure(n, args, episodes[n], Path(scratch))
            print(f"N={n}: {json.dumps(doc['large_teams'][str(n)])}", flush=True)
    doc["wall_seconds"] = round(time.perf_counter() - started, 1)
    Path(args.out).write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
