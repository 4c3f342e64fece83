"""Inference benchmark: the customer-service team served by `serving.runtime.TeamRuntime` on CPU.

Trains a small MAPPO team quickly (teacher–student with the rule-scripted team; or loads `--checkpoint`),
then serves test-split tickets through the runtime with the circuit breaker and rule fallback of
`examples/customer_service.json` (threshold 0.6, 3 consecutive, step limit 12; fallback: the tuned
rule-scripted team) and measures:

- per-ticket latency p50/p95 and per-step latency p50/p95, one request at a time (embeddings cached);
- throughput (tickets/s) and latency with 1, 8 and 32 concurrent requests;
- errors (failed requests) and faults (breaker-handled) at every level;
- quality of what was served: exact match, share of steps the model vs the fallback answered;
- cold latency: the same tickets with empty embedding caches (every ticket through the backbone).

    python bench/inference.py --out bench/results/inference.json [--quick] [--checkpoint DIR]

Keys are documented in bench/README.md (section bench/inference.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from agents.backbone import Backbone  # noqa: E402
from agents.envs.customer_service.env import CustomerServiceEnv  # noqa: E402
from agents.envs.customer_service.rules import KeywordRouter, ScriptedTeam  # noqa: E402
from agents.envs.customer_service.tickets import load_tickets  # noqa: E402
from serving.breaker import BreakerConfig, CircuitBreaker, ScriptedFallback  # noqa: E402
from serving.model import TeamModel  # noqa: E402
from serving.runtime import RuntimeConfig, TeamRuntime  # noqa: E402
from training.events import EventStream  # noqa: E402
from training.mappo import Featurizer, MappoConfig, MappoTeam, MappoTrainer  # noqa: E402
from training.offline import load_episodes, log_episodes, pretrain  # noqa: E402

CACHE = ROOT / "var" / "cache"
SPEC = ROOT / "examples" / "customer_service.json"
LEVELS = (1, 8, 32)

# Full: behaviour cloning only. MAPPO fine-tuning from the cloned team lowered its test exact match
# (0.18 -> 0.105 after 10 updates at lr 1e-4), and this benchmark measures serving, not training.
TRAIN_FULL = {"updates": 0, "episodes_per_update": 32, "epochs": 4, "minibatches": 2, "hidden": 128}
TRAIN_QUICK = {"updates": 2, "episodes_per_update": 8, "epochs": 2, "minibatches": 1, "hidden": 32}


def featurizer(backbone: Backbone, cached: bool = True) -> Featurizer:
    """The customer-service featurizer of bench/workflows.py (ticket + clause-max; status skipped)."""
    return Featurizer(
        backbone,
        skip=("status", "action_mask"),
        clauses=True,
        cache_file=CACHE / "customer_service_features.safetensors" if cached else None,
    )


def percentiles(values: list[float]) -> dict[str, float]:
    """p50 / p95 / mean of a list of milliseconds, rounded to 0.001 ms."""
    if not values:
        return {"p50": None, "p95": None, "mean": None}
    arr = np.asarray(values, dtype=float)
    return {
        "p50": round(float(np.percentile(arr, 50)), 3),
        "p95": round(float(np.percentile(arr, 95)), 3),
        "mean": round(float(arr.mean()), 3),
    }


def build_team(args, backbone: Backbone, team: ScriptedTeam, train, val) -> tuple[MappoTrainer, dict]:
    """Train a small team (teacher = the rule-scripted team) or load `--checkpoint`."""
    budget = TRAIN_QUICK if args.quick else TRAIN_FULL
    updates = budget["updates"] if args.updates is None else args.updates
    budget = budget | {"updates": max(1, updates)}
    cfg = MappoConfig(
        **budget,
        algorithm="mappo",
        sharing="lora",
        lr=1e-4,
        teacher_coef=1.0,
        eval_every=0,
        checkpoint_every=0,
        seed=args.seed,
    )
    trainer = MappoTrainer(
        cfg,
        MappoTeam(
            lambda split: CustomerServiceEnv(tickets=train if split == "train" else val),
            backbone=backbone,
            featurizer=featurizer(backbone),
            teacher=lambda agent, obs, info: team.act(agent, obs),
            success_fn=lambda info: bool(info.get("exact_match", False)),
        ),
    )
    if args.checkpoint:
        trainer.load_checkpoint(args.checkpoint)
        return trainer, {"checkpoint": str(args.checkpoint), "updates": trainer.update_index}
    started = time.perf_counter()
    info: dict[str, Any] = {}
    if args.offline_episodes:
        # sim-to-real (docs/design.md#sim-to-real): start from behaviour cloning of the rule team's logged episodes
        log = log_episodes(
            CustomerServiceEnv(tickets=train, shuffle=True),
            team.actions,
            args.offline_episodes,
            CACHE / f"inference_rule_logs_seed{args.seed}_n{args.offline_episodes}_t{len(train)}.jsonl",
            seed=args.seed,
        )
        info["offline"] = pretrain(
            trainer, load_episodes(log), epochs=args.offline_epochs, lr=1e-3, seed=args.seed
        )
    if updates > 0:
        trainer.train()
    info |= {"updates": updates, "episodes": trainer.episodes_done}
    info["seconds"] = round(time.perf_counter() - started, 1)
    if trainer.history:
        info["train_success_last"] = trainer.history[-1].get("success")
    if args.save_checkpoint:
        trainer.save_checkpoint(args.save_checkpoint)
        info["saved_to"] = str(args.save_checkpoint)
    return trainer, info


def make_runtime(model: TeamModel, fallback: ScriptedFallback, breaker_cfg: BreakerConfig, tickets):
    """A fresh runtime (fresh breaker) over the shared model; decision logs on, as a server would keep."""
    events = EventStream()
    breaker = CircuitBreaker(breaker_cfg, events=events, name="customer_service")
    return TeamRuntime(
        model,
        lambda: CustomerServiceEnv(tickets=tickets[:1], shuffle=False),
        breaker=breaker,
        fallback=fallback,
        config=RuntimeConfig(timeout_s=2.0, max_batch=32),
        events=events,
    )


def serve(runtime: TeamRuntime, tickets, concurrency: int) -> dict[str, Any]:
    """Run every ticket once at ``concurrency``; latency, throughput, errors, quality."""
    started = time.perf_counter()
    results = runtime.run_batch(tickets, concurrency=concurrency)
    wall = time.perf_counter() - started
    runtime.close()
    stats = runtime.status()["stats"]
    ok = [r for r in results if r.get("status") != "error"]
    steps = [ms for r in ok for ms in r["step_latency_ms"]]
    decision = [d["latency_ms"] for r in ok for d in r["decisions"] if d["agent"] == runtime.agents[0]]
    model_steps = sum(r["sources"]["model"] + r["sources"]["trial"] for r in ok)
    fallback_steps = sum(r["sources"]["fallback"] for r in ok)
    return {
        "rps": round(len(results) / wall, 2),
        "ticket_latency_ms": percentiles([r["latency_ms"] for r in ok]),
        "step_latency_ms": percentiles(steps),
        "decision_latency_ms": percentiles(decision),
        "errors": len(results) - len(ok),
        "faults": sum(len(r["faults"]) for r in ok),
        "exact_match": round(statistics.fmean(bool(r["info"].get("exact_match")) for r in ok), 4),
        "model_step_share": round(model_steps / max(1, model_steps + fallback_steps), 4),
        "breaker_opened": runtime.breaker.counts["opened"],
        "breaker_state": runtime.breaker.state,
        "steps_per_forward": round(stats["batched_steps"] / max(1, stats["forward_passes"]), 2),
        "requests": len(results),
        "wall_seconds": round(wall, 3),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description="Inference benchmark: TeamRuntime latency and throughput.")
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument("--quick", action="store_true", help="sub-minute smoke run")
    parser.add_argument("--checkpoint", help="load this MAPPO checkpoint instead of training")
    parser.add_argument("--save-checkpoint", help="save the trained team here (for later --checkpoint)")
    parser.add_argument(
        "--updates", type=int, default=None, help="MAPPO updates after cloning (full 0, quick 2)"
    )
    parser.add_argument(
        "--offline-episodes",
        type=int,
        default=None,
        help="rule-team episodes logged for behaviour cloning before MAPPO (default 600; --quick 16; 0 = off)",
    )
    parser.add_argument(
        "--offline-epochs", type=int, default=None, help="behaviour-cloning epochs (30; quick 2)"
    )
    parser.add_argument("--tickets", type=int, default=0, help="serve this many test tickets (0 = all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    args = parser.parse_args(argv)
    if args.offline_episodes is None:
        args.offline_episodes = 16 if args.quick else 600
    if args.offline_epochs is None:
        args.offline_epochs = 2 if args.quick else 30
    torch.set_num_threads(args.threads)
    started = time.perf_counter()
    backbone = Backbone.load("default")
    train, val, test = load_tickets("train"), load_tickets("validation"), load_tickets("test")
    if args.quick:
        train, val, test = train[:64], val[:16], test[:48]
    if args.tickets:
        test = test[: args.tickets]
    router = KeywordRouter.tuned(train)
    team = ScriptedTeam(router)
    trainer, train_info = build_team(args, backbone, team, train, val)
    trainer.featurize.text([t.text for t in test])  # "cache embeddings": served tickets are embedded once
    trainer.featurize.save_cache()
    spec = json.loads(SPEC.read_text())["circuit_breaker"]
    breaker_cfg = BreakerConfig.from_spec(spec)
    model = TeamModel(trainer)
    fallback = ScriptedFallback(team)

    arms = {
        # the team answers every step (threshold 0): the latency of the trained team itself
        "model": BreakerConfig(
            0.0, breaker_cfg.consecutive_low, breaker_cfg.cooldown_s, breaker_cfg.step_limit
        ),
        # the spec's breaker: low-confidence streaks hand steps to the rule fallback
        "guarded": breaker_cfg,
    }
    warm = make_runtime(model, fallback, arms["model"], test)
    warm.run_batch(test[:8], concurrency=1)  # first-call costs (thread pools, allocator) out of the figures
    levels: dict[str, dict[str, Any]] = {arm: {} for arm in arms}
    for level in LEVELS:
        for arm, cfg in arms.items():
            levels[arm][str(level)] = serve(make_runtime(model, fallback, cfg, test), test, level)
            print(f"[inference] {arm} x{level}: {levels[arm][str(level)]}", file=sys.stderr, flush=True)

    # cold: empty embedding caches, so every ticket goes through the backbone once
    cold_n = min(len(test), 16 if args.quick else 64)
    hot_featurize = trainer.featurize
    trainer.featurize = featurizer(backbone, cached=False)
    backbone.clear_cache()
    try:
        cold = serve(make_runtime(model, fallback, arms["model"], test), test[:cold_n], 1)
    finally:
        trainer.featurize = hot_featurize

    one = levels["model"]["1"]
    every = [v for by_level in levels.values() for v in by_level.values()] + [cold]
    out: dict[str, Any] = {
        "ticket_latency_ms": one["ticket_latency_ms"],
        "step_latency_ms": one["step_latency_ms"],
        "decision_latency_ms": one["decision_latency_ms"],
        "concurrency": {k: v["rps"] for k, v in levels["model"].items()},
        "errors": sum(v["errors"] for v in every),
        "faults": sum(v["faults"] for v in every),
        "arms": levels,
        "cold": {
            "tickets": cold_n,
            "ticket_latency_ms": cold["ticket_latency_ms"],
            "step_latency_ms": cold["step_latency_ms"],
        },
        "quality": {
            arm: {k: by_level["1"][k] for k in ("exact_match", "model_step_share", "breaker_opened")}
            for arm, by_level in levels.items()
        },
        "targets": {
            "step_p95_ms": 50.0,
            "step_p95_met": one["step_latency_ms"]["p95"] <= 50.0,
            "no_errors_at_32": all(by_level["32"]["errors"] == 0 for by_level in levels.values()),
        },
        "breaker": {
            "confidence_threshold": breaker_cfg.confidence_threshold,
            "consecutive_low": breaker_cfg.consecutive_low,
            "cooldown_s": breaker_cfg.cooldown_s,
            "step_limit": breaker_cfg.step_limit,
            "fallback": "scripted",
        },
        "train": train_info,
        "tickets": len(test),
        "threads": args.threads,
        "cpu_count": os.cpu_count(),
        "seed": args.seed,
        "quick": bool(args.quick),
        "backbone": backbone.describe(),
        "wall_seconds": round(time.perf_counter() - started, 1),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2, default=float))
    summary = {
        k: out[k] for k in ("ticket_latency_ms", "step_latency_ms", "concurrency", "errors", "quality")
    }
    print(json.dumps(summary, indent=1), file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
