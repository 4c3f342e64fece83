"""Paired comparison of two arms over seeds, from `bench/workflows.py` result files (one per seed or several).

Runs of one seed each can go two at a time on a small machine; this joins them. For every split the
workflow bench scores (test, validation, holdout styles) it pairs `--arm` with each `--against` arm seed by
seed: the mean and median difference in exact match, the seeds won, the paired t statistic and the
one-sided sign-test p value (no distribution assumed).

    python bench/paired.py RESULT.json... --out FILE.json --arm mappo_independent --against ippo ippo_comm

Keys are documented in bench/README.md (section bench/paired.py).
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scipy import stats

SPLITS = {
    "test": "customer_service",
    "validation": "customer_service_validation",
    "holdout": "customer_service_holdout",
}


def per_seed_results(paths: Sequence[Path]) -> dict[int, dict[str, Any]]:
    """{seed: that seed's results} from result files of one seed (top level) or several (`per_seed`)."""
    out: dict[int, dict[str, Any]] = {}
    for path in paths:
        doc = json.loads(Path(path).read_text())
        runs = doc.get("per_seed") or {doc["seeds"][0]: doc}
        for seed, run in runs.items():
            if int(seed) in out:
                raise ValueError(f"seed {seed} appears twice (again in {path})")
            out[int(seed)] = run
    return out


def sign_test_p(wins: int, losses: int) -> float:
    """One-sided exact sign test: P(at least `wins` of wins + losses fair coin flips come up heads)."""
    n = wins + losses
    return float(stats.binomtest(wins, n, 0.5, alternative="greater").pvalue) if n else 1.0


def paired_stats(diffs: Mapping[int, float]) -> dict[str, Any]:
    """Summary of per-seed differences (arm − baseline)."""
    values = list(diffs.values())
    wins, losses = sum(d > 0 for d in values), sum(d < 0 for d in values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return {
        "per_seed": dict(diffs),
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "sd": sd,
        "t": float(stats.ttest_1samp(values, 0.0).statistic) if sd > 0 else None,
        "wins": wins,
        "losses": losses,
        "ties": len(values) - wins - losses,
        "seeds": len(values),
        "sign_test_p": sign_test_p(wins, losses),
    }


def compare(runs: Mapping[int, Mapping[str, Any]], arm: str, against: Sequence[str]) -> dict[str, Any]:
    """{split: {"means": {arm: mean exact match}, "versus": {baseline: paired_stats}}} over the splits run."""
    out: dict[str, Any] = {}
    for split, key in SPLITS.items():
        scored = {seed: run[key] for seed, run in runs.items() if key in run}
        if not scored:
            continue
        missing = sorted({a for a in (arm, *against) for s in scored.values() if a not in s})
        if missing:
            raise ValueError(f"arm(s) {missing} missing from some {split} results; run them on every seed")
        out[split] = {
            "means": {
                a: statistics.fmean(s[a]["exact_match"] for s in scored.values()) for a in (arm, *against)
            },
            "versus": {
                base: paired_stats(
                    {
                        seed: s[arm]["exact_match"] - s[base]["exact_match"]
                        for seed, s in sorted(scored.items())
                    }
                )
                for base in against
            },
        }
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path, help="bench/workflows.py result files")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--arm", required=True, help="the arm under test")
    parser.add_argument("--against", nargs="+", required=True, help="baseline arms")
    args = parser.parse_args(argv)
    runs = per_seed_results(args.results)
    result = {"seeds": sorted(runs), "arm": args.arm, **compare(runs, args.arm, args.against)}
    args.out.write_text(json.dumps(result, indent=1))
    for split in SPLITS:
        for base, s in result.get(split, {}).get("versus", {}).items():
            t = "–" if s["t"] is None else f"{s['t']:.2f}"
            print(
                f"{split:10s} {args.arm} − {base}: {100 * s['mean']:+.1f} points (median {100 * s['median']:+.1f}), "
                f"ahead on {s['wins']} of {s['seeds']}, paired t {t}, sign test p {s['sign_test_p']:.3f}"
            )


if __name__ == "__main__":
    main()
