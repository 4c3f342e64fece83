"""Can a learned policy over sentence embeddings beat the tuned keyword router on customer-service tickets?

A supervised probe of the ceiling that the MAPPO arms chase (the RL team must also learn to act, approve
and stay brief; the probe only reads intents). Arms, all scored by exact match of the intent set and
micro intent F1 on validation, test and holdout_styles (and ``--tickets FILE``):

- ``rules``: `KeywordRouter.tuned()` on the training split (hand patterns, mined exceptions, mined keywords);
- ``pooled_mlp``: an MLP on the frozen all-MiniLM-L6-v2 embedding of the whole ticket;
- ``clause_max``: the same MLP scores every clause's embedding, the ticket takes the max per intent
  (multiple-instance learning: a ticket has an intent when one of its clauses does).

    python bench/customer_service_probe.py --out probe.json            # full splits, 3 seeds (minutes on CPU)
    python bench/customer_service_probe.py --out probe.json --quick    # small subsets, 1 seed
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.envs.customer_service.clauses import split_clauses  # noqa: E402
from agents.envs.customer_service.rules import KeywordRouter  # noqa: E402
from agents.envs.customer_service.tickets import INTENTS, Ticket, load_tickets  # noqa: E402


@dataclass
class ProbeConfig:
    """Hyper-parameters of the probe."""

    seeds: int = 3
    hidden: int = 128
    epochs: int = 300
    lr: float = 3e-3
    weight_decay: float = 1e-4
    train_limit: int | None = None  # first N training tickets (None = all)
    eval_limit: int | None = None  # first N tickets of each evaluation file
    threads: int = 2


QUICK = ProbeConfig(seeds=1, epochs=150, train_limit=150, eval_limit=40)


def labels(tickets: list[Ticket]) -> torch.Tensor:
    """Multi-hot intents [N, 8]."""
    return torch.tensor([[intent in t.intents for intent in INTENTS] for t in tickets], dtype=torch.float32)


def scores(predicted: torch.Tensor, truth: torch.Tensor) -> dict[str, float]:
    """Exact match of the intent set and micro F1."""
    predicted, truth = predicted.bool(), truth.bool()
    tp = (predicted & truth).sum().item()
    fp = (predicted & ~truth).sum().item()
    fn = (~predicted & truth).sum().item()
    return {
        "exact_match": float((predicted == truth).all(1).float().mean()),
        "intent_f1": 2 * tp / max(1, 2 * tp + fp + fn),
    }


def encode(backbone, texts: list[str]) -> torch.Tensor:
    """Frozen embeddings in batches."""
    with torch.no_grad():
        return torch.cat([backbone.encode(texts[i : i + 128]).float() for i in range(0, len(texts), 128)])


def train_mlp(x: torch.Tensor, segments: torch.Tensor, n: int, y: torch.Tensor, cfg: ProbeConfig, seed: int):
    """Fit an MLP whose per-row logits are max-pooled over each ticket's rows (one row per ticket = plain MLP)."""
    torch.manual_seed(seed)
    net = torch.nn.Sequential(
        torch.nn.Linear(x.shape[1], cfg.hidden), torch.nn.ReLU(), torch.nn.Linear(cfg.hidden, 8)
    )
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)

    def forward(rows: torch.Tensor, segs: torch.Tensor, count: int) -> torch.Tensor:
        logits = net(rows)
        out = torch.full((count, 8), -1e9)
        return out.scatter_reduce(0, segs[:, None].expand(-1, 8), logits, "amax")

    for _ in range(cfg.epochs):
        loss = torch.nn.functional.binary_cross_entropy_with_logits(forward(x, segments, n), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return forward


def main(argv: list[str] | None = None) -> None:
    """CLI entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tickets", help="also evaluate on this JSONL ticket file")
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else ProbeConfig()
    if args.threads:
        cfg = replace(cfg, threads=args.threads)
    torch.set_num_threads(cfg.threads)
    start = time.time()

    from rich.progress import Progress

    from agents.backbone import Backbone

    train = load_tickets("train")[: cfg.train_limit]
    files = {name: load_tickets(name)[: cfg.eval_limit] for name in ("validation", "test", "holdout_styles")}
    if args.tickets:
        files["tickets_file"] = load_tickets(args.tickets)[: cfg.eval_limit]
    router = KeywordRouter.tuned(train)
    backbone = Backbone.load("default")
    data = {}
    with Progress() as progress:
        task = progress.add_task("embedding tickets", total=1 + len(files))
        for name, tickets in {"train": train, **files}.items():
            pieces = [split_clauses(t.text) for t in tickets]
            data[name] = {
                "whole": encode(backbone, [t.text for t in tickets]),
                "clauses": encode(backbone, [p for ps in pieces for p in ps]),
                "segments": torch.tensor([i for i, ps in enumerate(pieces) for _ in ps]),
                "y": labels(tickets),
                "n": len(tickets),
            }
            progress.advance(task)
        results: dict[str, dict] = {name: {"n": len(t)} for name, t in files.items()}
        for name, tickets in files.items():
            predicted = torch.tensor([[i in router.predict(t.text) for i in INTENTS] for t in tickets])
            results[name]["rules"] = scores(predicted, data[name]["y"])
        runs: dict[str, dict[str, list[dict]]] = {
            name: {"pooled_mlp": [], "clause_max": []} for name in files
        }
        task = progress.add_task("training probes", total=2 * cfg.seeds)
        tr = data["train"]
        for seed in range(cfg.seeds):
            for arm, rows, segs in (
                ("pooled_mlp", tr["whole"], torch.arange(tr["n"])),
                ("clause_max", tr["clauses"], tr["segments"]),
            ):
                forward = train_mlp(rows, segs, tr["n"], tr["y"], cfg, seed)
                with torch.no_grad():
                    for name in files:
                        d = data[name]
                        x, s = (
                            (d["whole"], torch.arange(d["n"]))
                            if arm == "pooled_mlp"
                            else (d["clauses"], d["segments"])
                        )
                        runs[name][arm].append(scores(forward(x, s, d["n"]) > 0, d["y"]))
                progress.advance(task)
    for name in files:
        for arm, values in runs[name].items():
            results[name][arm] = {
                key: statistics.median(v[key] for v in values) for key in ("exact_match", "intent_f1")
            }
    train_predicted = torch.tensor([[i in router.predict(t.text) for i in INTENTS] for t in train])
    out = {
        "backbone": "all-MiniLM-L6-v2 (frozen)",
        "quick": args.quick,
        "config": asdict(cfg),
        "rules_train": scores(train_predicted, tr["y"]),
        "splits": results,
        "seconds": time.time() - start,
    }
    Path(args.out).write_text(json.dumps(out, indent=2))
    for name, row in results.items():
        cells = "  ".join(
            f"{arm}={row[arm]['exact_match']:.3f}" for arm in ("rules", "pooled_mlp", "clause_max")
        )
        print(f"{name} (n={row['n']}): exact match  {cells}")
    print(f"wrote {args.out} in {out['seconds']:.0f}s")


if __name__ == "__main__":
    main()
