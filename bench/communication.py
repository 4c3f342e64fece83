"""Communication-layer benchmark: semantic compression, gossip, priority channels, auction allocation.

Every arm and its baseline run in the same process on the same data; the output keys are documented in
bench/README.md (section ``bench/communication.py``).

- Compression: the semantic codec is fitted on the customer-service *train* tickets and measured on the
  *test* tickets. Bytes are whole HCP wire frames (header + payload + CRC) produced by the real encoder,
  one frame per batch of `batch` consecutive messages from one sender (the per-message frame figure is
  reported too). Intent accuracy = share of messages whose reconstructed vector gets the same intent as
  the uncompressed embedding under the same nearest-labelled-centroid classifier (first intent labels).
- Gossip vs a central controller at 20, 50, 100 agents (see agents/protocol/gossip.py for what is counted).
- Priority channels under a background flood plus urgent-channel abusers.
- Auction (+ load balancer) vs round-robin (and greedy earliest-finish) on a mixed task stream.

    python bench/communication.py --out comm.json            # full run (~1-2 min after embeddings are cached)
    python bench/communication.py --out comm.json --quick    # sub-minute smoke run
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import math
import os
import statistics
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from agents.protocol.auction import (  # noqa: E402
    EarliestFinish,
    LoadBalancer,
    RoundRobin,
    SealedBidAuction,
    simulate_allocation,
    workload,
)
from agents.protocol.channels import ChannelConfig, FifoLink, FloodScenario, PriorityScheduler, run_flood  # noqa: E402
from agents.protocol.compression import CodecConfig, HistoryCompressor, SemanticCodec  # noqa: E402
from agents.protocol.drift import CodebookDriftMonitor, DriftConfig  # noqa: E402
from agents.protocol.gossip import GossipConfig, simulate_workload  # noqa: E402
from agents.protocol.wire import OVERHEAD_BYTES, Frame, FrameKind, encode_frame  # noqa: E402

SEED_RAW_GB_PER_H = 12.7  # design target: 100 agents, uncompressed (docs/design.md#communication-protocol)


@dataclass
class Args:
    """Benchmark sizes (the --quick values are chosen to finish in well under a minute)."""

    quick: bool = False
    train: int = 0  # 0 = whole split
    test: int = 0
    batch: int = 32  # messages per frame (one sender's messages of one tick)
    history_len: int = 8
    gossip_seeds: int = 5
    gossip_update_prob: float = 0.2
    flood_ms: int = 10_000
    auction_tasks: int = 400
    auction_seeds: int = 5
    cache: str = str(ROOT / "var" / "cache" / "communication_bench")


# --------------------------------------------------------------------------------------------- embeddings
def make_embedder(cache_dir: str):
    """Return `embed(texts) -> np.ndarray` using the shared backbone, each distinct text encoded once.

    Results are also cached on disk (keyed by the texts' hash) so repeated runs skip the model.
    """
    state: dict = {}

    def embed(texts: list[str]) -> np.ndarray:
        key = hashlib.sha1("\n".join(texts).encode()).hexdigest()[:16]
        path = Path(cache_dir) / f"minilm_{key}.npy"
        if path.exists():
            return np.load(path)
        if "backbone" not in state:
            import torch

            torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
            from agents.backbone import Backbone

            state["backbone"] = Backbone.load("default")
        out = state["backbone"].encode(texts).numpy().astype(np.float32)
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, out)
        return out

    return embed


# -------------------------------------------------------------------------------------------- compression
def _frames_bytes(codec: SemanticCodec, x: np.ndarray, batch: int) -> tuple[int, np.ndarray]:
    """Encode `x` in frames of `batch` messages; return total bytes and the receiver's vectors."""
    total, vecs = 0, []
    for start in range(0, len(x), batch):
        data = codec.to_frame(x[start : start + batch], sender=start // batch % 100, channel=1)
        total += len(data)
        vecs.append(codec.from_frame(data)[1])  # decode the real bytes, as the receiver would
    return total, np.concatenate(vecs)


def _evaluate(codec, x, gold, original, raw_bytes, batch):
    total, rec = _frames_bytes(codec, x, batch)
    pred = codec.classifier.predict(rec)
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    cosine = (rec * unit).sum(axis=1) / np.linalg.norm(rec, axis=1)
    names = np.array(codec.classifier.names)
    bits = codec.stats()["bits_per_message"]
    return {
        "n_codes": codec.config.n_codes,
        "residual_dims": codec.config.residual_dims,
        "residual_bits": codec.config.residual_bits,
        "bits_per_message": bits,
        "byte_ratio": total / raw_bytes,
        "byte_ratio_unbatched": len(x) * (OVERHEAD_BYTES + math.ceil(bits / 8)) / raw_bytes,
        "intent_accuracy": float((pred == original).mean()),
        "gold_accuracy": float((names[pred] == gold).mean()),
        "cosine": float(cosine.mean()),
    }


def _open_loop(codec, x, gold, original, raw_bytes, batch) -> float:
    """Intent accuracy of the same fitted codec with the closed-loop check switched off."""
    codec.config.preserve_intent = False
    try:
        return _evaluate(codec, x, gold, original, raw_bytes, batch)["intent_accuracy"]
    finally:
        codec.config.preserve_intent = True


def bench_compression(args: Args, embed, progress) -> dict:
    from agents.envs.customer_service.tickets import load_tickets

    train = load_tickets("train")
    test = load_tickets("test")
    if args.train:
        train = train[: args.train]
    if args.test:
        test = test[: args.test]
    task = progress.add_task("embedding tickets", total=2)
    xtr = embed([t.text for t in train])
    progress.advance(task)
    xte = embed([t.text for t in test])
    progress.advance(task)
    ytr = [t.intents[0] for t in train]
    gold = np.array([t.intents[0] for t in test])
    raw_bytes = sum(len(t.text.encode("utf-8")) for t in test)

    main_cfg = CodecConfig(n_codes=128, residual_dims=8, residual_bits=1)
    codec = SemanticCodec(main_cfg).fit(xtr, ytr)
    unit = xte / np.linalg.norm(xte, axis=1, keepdims=True)
    original = codec.classifier.predict(unit)
    names = np.array(codec.classifier.names)
    main = _evaluate(codec, xte, gold, original, raw_bytes, args.batch)
    open_loop = _open_loop(codec, xte, gold, original, raw_bytes, args.batch)
    pca = SemanticCodec(CodecConfig(n_codes=128, residual_dims=8, residual_bits=1, residual_basis="pca")).fit(
        xtr, ytr
    )

    # Baselines on the same messages: raw text in TEXT frames, and zlib over each batch of raw text.
    texts = [t.text for t in test]
    text_frames = sum(
        len(encode_frame(Frame(FrameKind.TEXT, 0, tuple(texts[i : i + args.batch]))))
        for i in range(0, len(texts), args.batch)
    )
    zlib_bytes = sum(
        OVERHEAD_BYTES + len(zlib.compress("\n".join(texts[i : i + args.batch]).encode(), 9))
        for i in range(0, len(texts), args.batch)
    )

    grid = [
        (16, 0, 0),
        (64, 0, 0),
        (128, 0, 0),
        (128, 4, 1),
        (128, 8, 1),
        (128, 8, 2),
        (256, 8, 2),
        (256, 16, 2),
    ]
    if args.quick:
        grid = [(16, 0, 0), (64, 0, 0), (128, 8, 1), (128, 8, 2)]
    curve = []
    task = progress.add_task("bit-budget curve", total=len(grid))
    for k, r, b in grid:
        if k > len(xtr):
            progress.advance(task)
            continue
        if (k, r, b) == (128, 8, 1):
            c = codec  # the main codec: same settings, already fitted
        else:
            c = SemanticCodec(CodecConfig(n_codes=k, residual_dims=r, residual_bits=b)).fit(xtr, ytr)
        row = _evaluate(c, xte, gold, original, raw_bytes, args.batch)
        row["intent_accuracy_open_loop"] = _open_loop(c, xte, gold, original, raw_bytes, args.batch)
        curve.append(row)
        progress.advance(task)

    # History: consecutive test messages grouped into conversations of `history_len` messages.
    hist = HistoryCompressor(codec, keep_recent=1)
    hist_bytes, sem_bytes, hist_raw, same = 0, 0, 0, 0
    for start in range(0, len(xte), args.history_len):
        chunk = xte[start : start + args.history_len]
        codes, levels = codec.encode(chunk)
        data = hist.to_frame(codes, levels)
        hist_bytes += len(data)
        sem_bytes += len(codec.to_frame(chunk))
        hist_raw += sum(len(t.encode()) for t in texts[start : start + args.history_len])
        same += int(
            (
                codec.classifier.predict(codec.from_frame(data)[1]) == original[start : start + len(chunk)]
            ).sum()
        )

    drift = bench_drift(codec, xtr, ytr, embed, args)
    return {
        **{k: main[k] for k in ("byte_ratio", "intent_accuracy", "gold_accuracy")},
        "byte_ratio_unbatched": main["byte_ratio_unbatched"],
        "cosine": main["cosine"],
        "bits_per_message": main["bits_per_message"],
        "codec": {"n_codes": 128, "residual_dims": 8, "residual_bits": 1, "residual_basis": "intent"},
        "batch": args.batch,
        "messages": len(test),
        "raw_bytes": raw_bytes,
        "raw_bytes_per_message": raw_bytes / len(test),
        "gold_accuracy_uncompressed": float((names[original] == gold).mean()),
        "intent_accuracy_open_loop": open_loop,
        "intent_accuracy_pca_basis": _evaluate(pca, xte, gold, original, raw_bytes, args.batch)[
            "intent_accuracy"
        ],
        "text_frame_ratio": text_frames / raw_bytes,
        "zlib_ratio": zlib_bytes / raw_bytes,
        "seed_100_agents_mb_per_h": SEED_RAW_GB_PER_H * 1000 * main["byte_ratio"],
        "curve": curve,
        "history": {
            "ratio_vs_raw": hist_bytes / hist_raw,
            "ratio_vs_frames": hist_bytes / sem_bytes,
            "residual_keep_rate": hist.stats()["residual_keep_rate"],
            "intent_accuracy": same / len(xte),
            "messages_per_history": args.history_len,
        },
        "drift": drift,
        "codec_stats": codec.stats(),
    }


def bench_drift(codec: SemanticCodec, xtr, ytr, embed, args: Args) -> dict:
    """Storm warning on real traffic: validation tickets (in distribution), then the hold-out phrasing
    styles the codebook never saw (formal letters, terse notes), then the other half of those after a re-fit
    on the first half."""
    from agents.envs.customer_service.tickets import load_tickets

    n = 80 if args.quick else 400
    xho = embed([t.text for t in load_tickets("holdout_styles")[:n]])
    # A random sample: the validation file is not shuffled, and its halves differ in intent mix.
    validation = load_tickets("validation")
    pick = np.random.default_rng(0).permutation(len(validation))[:n]
    xva = embed([validation[i].text for i in pick])
    half = n // 2
    drifted = copy.deepcopy(codec)  # re-fit a copy: the benchmark's main codec stays as measured
    monitor = CodebookDriftMonitor(drifted, DriftConfig(window=half, min_samples=half))
    monitor.calibrate(xva[:half])
    quiet = monitor.observe(xva[half:])
    quiet_ratio, quiet_psi = monitor.last.get("distortion_ratio"), monitor.last.get("psi")
    alert = monitor.observe(xho[:half])
    shifted = dict(monitor.last)
    monitor.refit(extra_codes=64)  # on the new-style window just observed; grow 128 → 192 codes (8 bits)
    after = monitor.observe(xho[half:])
    return {
        "window": half,
        "alert_in_distribution": quiet is not None,
        "distortion_ratio_in_distribution": quiet_ratio,
        "psi_in_distribution": quiet_psi,
        "alert_on_new_styles": alert is not None,
        "alert_reason": alert["reason"] if alert else None,
        "distortion_ratio_new_styles": shifted.get("distortion_ratio"),
        "psi_new_styles": shifted.get("psi"),
        "alert_after_refit": after is not None,
        "distortion_ratio_after_refit": monitor.last.get("distortion_ratio"),
        "codebook_version_after_refit": drifted.version,
        "n_codes_after_refit": drifted.config.n_codes,
        "distortion_ratio_old_traffic_after_refit": (
            drifted._traffic_profile(drifted._check(xva[half:]))["distortion"]
            / monitor.baseline["distortion"]
        ),
    }


# ------------------------------------------------------------------------------------------------ gossip
def bench_gossip(args: Args, progress) -> dict:
    out: dict = {}
    sizes = (20, 50, 100)
    task = progress.add_task("gossip vs central", total=len(sizes) * args.gossip_seeds)
    for n in sizes:
        runs = []
        for seed in range(args.gossip_seeds):
            runs.append(simulate_workload(n, args.gossip_update_prob, config=GossipConfig(seed=seed)))
            progress.advance(task)
        sweep = {
            str(p): statistics.median(
                simulate_workload(n, p, config=GossipConfig(seed=s))["message_ratio"]
                for s in range(max(1, args.gossip_seeds // 2))
            )
            for p in (0.05, 0.5)
        }
        sweep[str(args.gossip_update_prob)] = statistics.median(r["message_ratio"] for r in runs)
        out[str(n)] = {
            "message_ratio": statistics.median(r["message_ratio"] for r in runs),
            "rounds": statistics.median(r["rounds"] for r in runs),
            "rounds_worst_seed": max(r["rounds"] for r in runs),
            "rounds_max": max(r["gossip"]["rounds_max"] for r in runs),
            "rounds_bound": 2 * math.log2(n),
            "message_ratio_vs_batched_central": statistics.median(
                r["message_ratio_vs_batched"] for r in runs
            ),
            "gossip_messages_per_change": statistics.median(r["gossip"]["messages_per_change"] for r in runs),
            "central_messages_per_change": 2.0 * n,
            "max_node_messages_per_round": statistics.median(
                r["gossip"]["max_node_messages_per_round"] for r in runs
            ),
            "controller_messages_per_round": statistics.median(
                r["central"]["controller_messages_per_round"] for r in runs
            ),
            "anti_entropy_runs": statistics.median(r["gossip"]["anti_entropy_runs"] for r in runs),
            "all_converged": all(r["gossip"]["converged"] for r in runs),
            "message_ratio_by_update_prob": dict(sorted(sweep.items())),
        }
    out["workload"] = {
        "update_prob": args.gossip_update_prob,
        "active_rounds": 30,
        "seeds": args.gossip_seeds,
    }
    return out


# ---------------------------------------------------------------------------------------------- priority
def bench_priority(args: Args, progress) -> dict:
    scenario = FloodScenario(duration_ms=args.flood_ms)
    task = progress.add_task("priority channels under flood", total=3)
    arms = {}
    for name, link in (
        ("scheduler", PriorityScheduler()),
        (
            "no_quota_no_reputation",
            PriorityScheduler(ChannelConfig(enforce_quotas=False, use_reputation=False)),
        ),
        ("fifo", FifoLink()),
    ):
        arms[name] = run_flood(link, scenario)
        progress.advance(task)
    s = arms["scheduler"]
    st = s["stats"]
    return {
        "urgent_p95_ms": s["urgent_p95_ms"],
        "urgent_p50_ms": s["urgent_p50_ms"],
        "urgent_max_ms": s["urgent_max_ms"],
        "regular_p95_ms": st["regular"]["p95_ms"],
        "background_delivered": st["background"]["delivered"],
        "offered_load": s["offered_load"],
        "demoted_reputation": st["demoted_reputation"],
        "demoted_quota": st["demoted_quota"],
        "dropped": st["dropped_quota"] + st["dropped_queue_full"],
        "no_guard_urgent_p95_ms": arms["no_quota_no_reputation"]["urgent_p95_ms"],
        "fifo_urgent_p95_ms": arms["fifo"]["urgent_p95_ms"],
        "duration_ms": args.flood_ms,
    }


# ----------------------------------------------------------------------------------------------- auction
def bench_auction(args: Args, progress) -> dict:
    arms: dict[str, list[dict]] = {
        "round_robin": [],
        "auction": [],
        "auction_balanced": [],
        "earliest_finish": [],
    }
    task = progress.add_task("auction vs round-robin", total=args.auction_seeds)
    for seed in range(args.auction_seeds):
        tasks, team = workload(n_tasks=args.auction_tasks, seed=seed)
        arms["round_robin"].append(simulate_allocation(tasks, team, RoundRobin()))
        arms["auction"].append(simulate_allocation(tasks, team, SealedBidAuction()))
        arms["auction_balanced"].append(simulate_allocation(tasks, team, SealedBidAuction(), LoadBalancer()))
        arms["earliest_finish"].append(simulate_allocation(tasks, team, EarliestFinish()))
        progress.advance(task)

    def med(arm, key):
        return statistics.median(r[key] for r in arms[arm])

    return {
        "makespan_ratio": med("auction_balanced", "makespan") / med("round_robin", "makespan"),
        "wait_ratio": med("auction_balanced", "mean_wait") / med("round_robin", "mean_wait"),
        "makespan_ratio_no_balancer": med("auction", "makespan") / med("round_robin", "makespan"),
        "wait_ratio_no_balancer": med("auction", "mean_wait") / med("round_robin", "mean_wait"),
        "makespan_ratio_vs_earliest_finish": med("auction_balanced", "makespan")
        / med("earliest_finish", "makespan"),
        "wait_ratio_vs_earliest_finish": med("auction_balanced", "mean_wait")
        / med("earliest_finish", "mean_wait"),
        "arms": {
            arm: {k: med(arm, k) for k in ("makespan", "mean_wait", "p95_wait", "utilisation_spread")}
            for arm in arms
        },
        "tasks": args.auction_tasks,
        "seeds": args.auction_seeds,
    }


# -------------------------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    """Run every part and write the JSON report."""
    from rich.console import Console
    from rich.progress import Progress

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="where to write the JSON report")
    parser.add_argument("--quick", action="store_true", help="sub-minute smoke run on small samples")
    ns = parser.parse_args(argv)
    args = Args(quick=ns.quick)
    if ns.quick:
        args.train, args.test = 300, 150
        args.gossip_seeds, args.flood_ms, args.auction_tasks, args.auction_seeds = 2, 3000, 150, 2
    start = time.time()
    embed = make_embedder(args.cache)
    with Progress(transient=True) as progress:
        report = {
            "quick": args.quick,
            "compression": bench_compression(args, embed, progress),
            "gossip": bench_gossip(args, progress),
            "priority": bench_priority(args, progress),
            "auction": bench_auction(args, progress),
        }
    report["seconds"] = time.time() - start
    out = Path(ns.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    c, p, a = report["compression"], report["priority"], report["auction"]
    console = Console()
    console.print(
        f"compression: {100 * c['byte_ratio']:.2f}% of raw bytes, intent {100 * c['intent_accuracy']:.1f}% "
        f"(open loop {100 * c['intent_accuracy_open_loop']:.1f}%), gold {100 * c['gold_accuracy']:.1f}% "
        f"(uncompressed {100 * c['gold_accuracy_uncompressed']:.1f}%); history {100 * c['history']['ratio_vs_raw']:.2f}%"
    )
    for n in ("20", "50", "100"):
        g = report["gossip"][n]
        console.print(
            f"gossip {n:>3}: {100 * g['message_ratio']:.1f}% of central messages, "
            f"rounds p95 {g['rounds']:.1f} (bound {g['rounds_bound']:.1f})"
        )
    console.print(
        f"priority: urgent p95 {p['urgent_p95_ms']:.1f} ms (no guard {p['no_guard_urgent_p95_ms']:.0f} ms, "
        f"FIFO {p['fifo_urgent_p95_ms']:.0f} ms) at offered load {p['offered_load']:.2f}"
    )
    console.print(f"auction/round-robin: makespan {a['makespan_ratio']:.2f}, mean wait {a['wait_ratio']:.3f}")
    console.print(f"wrote {out} in {report['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
