"""Study (docs/experiments/2026-12-05-out-of-scope.md, "a small dataset's floor"): the scope floor of a
gate built from a small upload. The floor is the ``1 - keep`` quantile of the dev tickets' left-out scores;
with fewer than ``1 / (1 - keep)`` (200) of them the quantile cannot be read and the floor sits just under
the lowest one, which for a 70-row upload (7 dev rows) is the lowest of 7: about the 12 % quantile, not the
0.5 % one. The rules compared (fixed before any figure was read):

- ``order``: today's, the order statistic of the dev tickets' scores;
- ``normal_tail``: under 200 dev scores, the lower of ``order`` and ``mean - z * sd`` of those scores,
  ``z`` the normal quantile of ``keep`` (2.58): a tail the sample is too small to show, extrapolated;
- ``pooled``: the order statistic over every labelled row (training and dev), each left out in turn;
- ``pooled_tail``: ``pooled`` with the same extrapolation.

``normal_tail`` is the product's rule since decision 0042 (`serving.scope.in_scope_floor`).

Uploads are simulated by drawing N rows from a domain's training file and dealing them 80/10/10 as the
product does; in-scope tickets are the domain's own dev file (never drawn), out-of-scope ones our generic
out-of-scope dev set plus the other domain's dev tickets. Test files are read once, with ``--test``.

    python bench/scope_small_data.py [--sizes 30 70 150 290] [--seeds 0 1 2 3 4] [--test] [--out F.json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

from bench.datasets import DATA, read_catalogue, read_rows, split_rows  # noqa: E402
from serving.scope import KEEP, ScopeGate, in_scope_floor  # noqa: E402

RULES = ("order", "normal_tail", "pooled", "pooled_tail")
DOMAINS = {  # domain: (training rows, catalogue file or None, held-out in-scope dev, its test)
    "it_helpdesk": ("it_helpdesk/train.jsonl", "it_helpdesk/catalogue.json", "it_helpdesk/dev.jsonl",
                    "it_helpdesk/test.jsonl"),
    "customer_service": ("customer_service/train.jsonl", None, "customer_service/validation.jsonl",
                         "customer_service/test.jsonl"),
}  # fmt: skip
GENERIC_OUTSIDE = {
    "dev": "customer_service/out_of_scope_dev.jsonl",
    "test": "customer_service/out_of_scope_test.jsonl",
}


def order_floor(scores: np.ndarray, keep: float = KEEP) -> float:
    """The rule before decision 0042: the order statistic alone (the lowest score under 200)."""
    ranked = np.sort(scores)
    return float(ranked[min(int(np.floor((1.0 - keep) * len(ranked) + 1e-9)), len(ranked) - 1)] - 1e-6)


def floors(catalogue, train, dev, embed) -> tuple[dict[str, float], ScopeGate]:
    """Each rule's floor. The product's gate gives the dev tickets' scores (or, with no dev row drawn, the
    labelled ones'); a gate over every labelled row gives the pooled ones. Both have the same anchors."""
    gate = ScopeGate(catalogue, train, embed, dev=dev)
    dev_scores = np.asarray(gate.floor_scores)
    pooled = np.asarray(ScopeGate(catalogue, train + dev, embed).floor_scores)
    found = {
        "order": order_floor(dev_scores),
        "normal_tail": in_scope_floor(list(dev_scores)),
        "pooled": order_floor(pooled),
        "pooled_tail": in_scope_floor(list(pooled)),
    }
    assert abs(found["normal_tail"] - gate.floor) < 1e-12  # the product's rule since decision 0042
    return found, gate


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 70, 150, 290])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--test", action="store_true", help="read the test files (once, after the choice)")
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv)
    from agents.backbone import Backbone

    backbone = Backbone.load("default")
    cache: dict[str, torch.Tensor] = {}

    def embed(texts):  # the same texts come back for every draw: encode each once
        missing = [t for t in dict.fromkeys(texts) if t not in cache]
        if missing:
            for text, vector in zip(missing, backbone.encode(missing), strict=True):
                cache[text] = vector
        return torch.stack([cache[t] for t in texts])

    part = "test" if args.test else "dev"
    results: dict[str, Any] = {"part": part, "keep": KEEP, "domains": {}}
    for domain, (train_file, catalogue_file, dev_file, test_file) in DOMAINS.items():
        pool = read_rows(DATA / train_file)
        catalogue = read_catalogue(DATA / catalogue_file if catalogue_file else None, pool)
        inside = [r["text"] for r in read_rows(DATA / (test_file if args.test else dev_file))][:400]
        other = next(d for d in DOMAINS if d != domain)
        other_file = DOMAINS[other][3 if args.test else 2]
        outside = [r["text"] for r in read_rows(DATA / GENERIC_OUTSIDE[part])]
        outside += [r["text"] for r in read_rows(DATA / other_file)][:300]
        per_size: dict[str, Any] = {}
        for size in args.sizes:
            rows: dict[str, list[dict[str, float]]] = {rule: [] for rule in RULES}
            for seed in args.seeds:
                drawn = random.Random(seed).sample(pool, min(size, len(pool)))
                train, dev, _test = split_rows(drawn, [0.1, 0.1], seed)
                found, gate = floors(catalogue, train, dev, embed)
                for rule, floor in found.items():
                    rows[rule].append({
                        "floor": floor,
                        "in_scope_kept": float(np.mean(gate.scores(inside) > floor)),
                        "out_of_scope_turned_away": float(np.mean(gate.scores(outside) <= floor)),
                        "dev_rows": len(dev),
                    })  # fmt: skip
            per_size[str(size)] = {
                rule: {key: float(np.median([r[key] for r in found])) for key in found[0]}
                | {"per_seed": found}
                for rule, found in rows.items()
            }
            line = "  ".join(
                f"{rule} kept {per_size[str(size)][rule]['in_scope_kept']:.3f} "
                f"away {per_size[str(size)][rule]['out_of_scope_turned_away']:.3f}"
                for rule in RULES
            )
            print(f"{domain:17s} N={size:4d}  {line}", flush=True)
        results["domains"][domain] = per_size
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))
    return results


if __name__ == "__main__":
    main()
