"""An operator takes a served large team's busiest specialist offline in the middle of a stream (issue 37: the
deployment's "take this agent offline"), through the runtime a deployment builds
(`serving.runtime.TeamRuntime.from_spec_checkpoint`, its roster applied before the next task): the share of the
next 100 tasks done in time, for the learned bidders, the fixed auction and the central router, against the same
streams with nobody taken offline and with the same agent failing at the same task through the fault schedule
(what it held is then lost; an operator's take-offline hands it over).

    python bench/large_team_offline.py --checkpoint RUN/checkpoints/mappo/last --out F.json [--streams 8]
    python bench/large_team_offline.py --quick --out F.json   # a ten-agent team trained for seconds

The streams are held-out seeds (10 000 + i), never used in training. Keys (bench/README.md):
``large_team_offline.<allocation>.{in_time_after_<mode>, in_time_all_<mode>, handed_over, lost_offline,
lost_fault}`` (mode: none, offline, fault; ``all``: the whole stream, the tasks the agent held included) (lost: shares of the stream's tasks) and ``large_team_offline.streams``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents.envs.large_team import LargeTeamEnv, scaled_groups  # noqa: E402
from agents.spec import load_spec  # noqa: E402
from serving.runtime import RuntimeConfig, TeamRuntime  # noqa: E402

ALLOCATIONS = ("auction", "fixed_auction", "central")
AFTER = 100
SEED_BASE = 10_000


def quick_spec() -> dict:
    """The gallery template cut to ten agents and streams of 60 tasks, trained for four episodes."""
    doc = json.loads((ROOT / "examples" / "large_team.json").read_text())
    groups = scaled_groups(10)
    doc["environment"]["params"] |= {"groups": groups, "max_steps": 60}
    doc["agents"] = [a for a in doc["agents"] if a["id"] in {g.split("*")[0] for g in groups}]
    doc["training"] |= {"episodes": 4, "batch_size": 2, "eval_every": 0, "checkpoint_every": 4}
    return doc


def runtime_for(doc: dict, checkpoint: Path, allocation: str) -> TeamRuntime:
    doc = json.loads(json.dumps(doc))
    doc["environment"]["params"]["allocation"] = allocation  # the other allocations ignore the trained bids
    team = load_spec(doc, require_environment=True)
    return TeamRuntime.from_spec_checkpoint(team, checkpoint, config=RuntimeConfig(log_decisions=False))


def play(runtime: TeamRuntime, seed: int, at: int, specialists: list[str], mode: str, agent: str | None):
    """One stream; ``mode``: none | offline (the operator, at task ``at``: the busiest specialist then) | fault
    (``agent`` fails at task ``at``). Returns (in-time share of the AFTER tasks from ``at``, the agent, info)
    (``info["in_time"]``: the whole stream's share, which counts the tasks the agent held)."""
    runtime.roster.set([])
    chosen: dict[str, str] = {}

    def sink(request_id: str, step: int, info: dict) -> None:
        if mode == "offline" and step == at:  # the roster applies before the next task (index `at`)
            backlog = dict(zip(runtime.agents, info["load"]["backlog"], strict=True))
            chosen["agent"] = max(specialists, key=lambda a: backlog[a])
            runtime.roster.set([chosen["agent"]])

    runtime.info_sink = sink
    options = {"faults": [f"{agent}@{at}"]} if mode == "fault" else {}
    info = runtime.run(options, seed=seed)["info"]
    runtime.info_sink = None
    flags = np.array(info["in_time_flags"])
    return float(flags[at : at + AFTER].mean()), chosen.get("agent", agent), info


def measure(doc: dict, checkpoint: Path, streams: int, at: int) -> dict[str, float]:
    members = LargeTeamEnv.member_ids(doc["environment"]["params"])
    specialists = [m for m in members if not m.startswith("generalists")]
    out: dict[str, float] = {"large_team_offline.streams": streams}
    for allocation in ALLOCATIONS:
        runtime = runtime_for(doc, checkpoint, allocation)
        rows = []
        for i in range(streams):
            seed = SEED_BASE + i
            none, _, none_info = play(runtime, seed, at, specialists, "none", None)
            offline, agent, info = play(runtime, seed, at, specialists, "offline", None)
            fault, _, fault_info = play(runtime, seed, at, specialists, "fault", agent)
            rows.append(
                (none, offline, fault, info["load"]["handed_over"], info["lost"], fault_info["lost"])
                + (none_info["in_time"], info["in_time"], fault_info["in_time"])
            )
        runtime.close()
        mean = np.array(rows).mean(axis=0)
        key = f"large_team_offline.{allocation}"
        for name, value in zip(("none", "offline", "fault"), mean[:3], strict=True):
            out[f"{key}.in_time_after_{name}"] = round(float(value), 4)
        out[f"{key}.handed_over"] = round(float(mean[3]), 2)
        out[f"{key}.lost_offline"] = round(float(mean[4]), 4)
        out[f"{key}.lost_fault"] = round(float(mean[5]), 4)
        for name, value in zip(("none", "offline", "fault"), mean[6:], strict=True):
            out[f"{key}.in_time_all_{name}"] = round(float(value), 4)
    return out


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", type=Path, help="a trained team's checkpoint directory")
    parser.add_argument("--spec", type=Path, default=ROOT / "examples" / "large_team.json")
    parser.add_argument("--streams", type=int, default=8)
    parser.add_argument("--at", type=int, default=100, help="the task at which the agent goes offline")
    parser.add_argument("--quick", action="store_true", help="a ten-agent team trained here for seconds")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    started = time.perf_counter()
    if args.quick:
        from training import api

        doc = quick_spec()
        run_dir = Path(tempfile.mkdtemp(prefix="large_team_offline_"))
        api.train(doc, run_dir, resume=False)
        checkpoint, streams, at = run_dir / "checkpoints" / "mappo" / "last", 2, 30
    else:
        if args.checkpoint is None:
            parser.error("--checkpoint is required without --quick")
        doc, checkpoint, streams, at = (
            json.loads(args.spec.read_text()),
            args.checkpoint,
            args.streams,
            args.at,
        )
    figures = measure(doc, checkpoint, streams, at)
    figures["large_team_offline.seconds"] = round(time.perf_counter() - started, 1)
    args.out.write_text(json.dumps(figures, indent=2) + "\n")
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
