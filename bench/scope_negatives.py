"""One-off study (docs/experiments/2026-12-05-out-of-scope.md, 2026-12-06, "out-of-scope rows as negatives"):
a second signal for the scope gate trained to be unsure of out-of-scope tickets. Linear readers of the frozen
sentence vectors are fitted on the training split plus the generated out-of-scope train rows as a "none of
these" target; a ticket is turned away only when the gate's score is at or below its floor AND the signal is
below a threshold (``gated``), or, without the gate, when the signal alone is below a threshold (``alone``).
Thresholds come from one fixed grid and are chosen on dev only by `scope_confidence`'s rule; the script prints
the dev curves, then the figures at the chosen thresholds (to be read once).

    python bench/scope_negatives.py [--seed 0] [--out F.json]

The variants (fixed before any test figure was read), each a probability that the ticket is in scope:

- ``plain``: the plain classifier on the training split, its most probable intent (the earlier study's
  stand-in, the reference);
- ``ovr_negatives``: the same one-vs-rest readers fitted with the out-of-scope rows as rows of no intent
  (every intent's label 0), its most probable intent;
- ``none_class``: one multinomial regression over the intents and "none" (a ticket of two intents is one row
  per intent; the out-of-scope rows are "none"), one minus the probability of "none" (`serving.scope_none`,
  the gate's second signal since decision 0041: the same fit);
- ``in_vs_out``: one binary regression, training split (in) against the out-of-scope rows (out), classes
  weighted to balance, the probability of "in".

The signals do not depend on the team's seed (only the team's exact match does), so the dev choice is the same
for every seed. Reuses bench/datasets.py (the shipped template trained as shipped, its deployment's gate).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import roc_auc_score  # noqa: E402

from bench import datasets as ds  # noqa: E402
from bench.scope_confidence import (  # noqa: E402
    DEV_IN,
    DEV_OUT,
    MAX_EXTRA_ANSWERED,
    TEST_IN,
    TEST_OUT,
    dev_tradeoff,
)
from bench.scope_confidence import THRESHOLDS as STUDY_THRESHOLDS  # noqa: E402
from serving.scope_none import NoneClass  # noqa: E402
from training.plain_classifier import INVERSE_REGULARISATION, unit_vectors  # noqa: E402

THRESHOLDS = tuple(sorted(set(STUDY_THRESHOLDS) | {round(0.05 * k, 2) for k in range(1, 20)}))
"""The earlier study's grid (0: no second signal; 1.01: every ticket the rule can reach is turned away) with
steps of 0.05 added: these signals sit far lower on out-of-scope tickets than the team's confidence did."""
VARIANTS = ("plain", "ovr_negatives", "none_class", "in_vs_out")
OUTSIDE_TRAIN = "out_of_scope_generated_train"
VALIDATION = "validation"  # the gate's anchors (always kept by it); for the signal alone it is a fair dev set


def fit_signals(backbone: Any) -> tuple[dict[str, Any], float]:
    """Each variant as ``texts -> in-scope probability`` (module docstring), fitted on the training split and
    the generated out-of-scope train rows; the seconds all fits took."""
    started = time.perf_counter()
    train = ds.read_rows(ds.DATA / ds.ENVIRONMENT / "train.jsonl")
    outside = ds.read_rows(ds.DATA / ds.ENVIRONMENT / f"{OUTSIDE_TRAIN}.jsonl")
    intents = sorted({i for r in train for i in r["intents"]})
    plain = ds.PlainClassifier.fit(backbone.encode, train, intents)
    negatives = ds.PlainClassifier.fit(
        backbone.encode, train + [{"text": r["text"], "intents": []} for r in outside], intents
    )
    x_in = unit_vectors(backbone.encode, [r["text"] for r in train])
    x_out = unit_vectors(backbone.encode, [r["text"] for r in outside])
    none_class = NoneClass.fit(x_in, [r["intents"] for r in train], x_out)
    binary = LogisticRegression(C=INVERSE_REGULARISATION, max_iter=2000, class_weight="balanced")
    binary.fit(np.concatenate([x_in, x_out]), np.r_[np.ones(len(x_in)), np.zeros(len(x_out))])
    inside = list(binary.classes_).index(1.0)

    def vectors(texts: list[str]) -> np.ndarray:
        return unit_vectors(backbone.encode, texts)

    signals = {
        "plain": lambda texts: plain.probabilities(texts).max(axis=1),
        "ovr_negatives": lambda texts: negatives.probabilities(texts).max(axis=1),
        "none_class": lambda texts: none_class.in_scope_probability(vectors(texts)),
        "in_vs_out": lambda texts: binary.predict_proba(vectors(texts))[:, inside],
    }
    return signals, time.perf_counter() - started


def away_mask(f: dict[str, Any], variant: str, tau: float, gated: bool) -> np.ndarray:
    """Which tickets of one set the rule turns away: signal < tau, and (gated) the gate's score ≤ floor."""
    away = np.array(f[variant]) < tau
    return away & np.array(f["below"]) if gated else away


def figures(found: dict, name: str, variant: str, tau: float | None, gated: bool) -> dict[str, float]:
    """One set's figures under a rule (``tau`` None: the gate alone)."""
    f = found[name]
    away = np.array(f["below"]) if tau is None else away_mask(f, variant, tau, gated)
    if name in DEV_OUT + TEST_OUT:
        return {"answered": float(1 - away.mean())}
    out = {"away": float(away.mean())}
    if "exact" in f:
        exact = np.array(f["exact"])
        out |= {"before": float(exact.mean()), "after": float((exact & ~away).mean())}
    return out


def pooled_answered(found: dict, variant: str, tau: float | None, gated: bool) -> float:
    """The out-of-scope dev tickets (generated dev and the hand-written dev set, pooled) answered."""
    masks = [
        np.array(found[n]["below"]) if tau is None else away_mask(found[n], variant, tau, gated)
        for n in DEV_OUT
    ]
    return float(1 - np.concatenate(masks).mean())


def choose(found: dict, variant: str, gated: bool) -> tuple[float | None, dict[str, Any]]:
    """The most permissive threshold whose pooled oos dev answered stays within 1 point of the gate alone's
    (dev only); None when no threshold of the grid does."""
    budget = pooled_answered(found, variant, None, True) + MAX_EXTRA_ANSWERED
    curve = {}
    for tau in THRESHOLDS:
        curve[str(tau)] = {n: figures(found, n, variant, tau, gated) for n in DEV_IN + (VALIDATION,)}
        curve[str(tau)]["pooled_oos_dev_answered"] = pooled_answered(found, variant, tau, gated)
    within = [tau for tau in THRESHOLDS if curve[str(tau)]["pooled_oos_dev_answered"] <= budget + 1e-12]
    return (min(within) if within else None), {"budget": budget, "curve": curve}


def dev_auroc(found: dict, variant: str, below_only: bool) -> float | None:
    """AUROC of the signal, in-scope dev (plain-language) against out-of-scope dev (pooled)."""

    def values(names: tuple[str, ...]) -> list[float]:
        return [v for n in names for v, b in zip(found[n][variant], found[n]["below"], strict=True)
                if b or not below_only]  # fmt: skip

    inside, outside = values(DEV_IN), values(DEV_OUT)
    if not inside or not outside:
        return None
    return float(roc_auc_score(np.r_[np.ones(len(inside)), np.zeros(len(outside))], np.r_[inside, outside]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out")
    args = parser.parse_args()
    torch.set_num_threads(1)
    started = time.perf_counter()
    backbone = ds.Backbone.load("default")
    doc = json.loads(ds.TEMPLATE.read_text(encoding="utf-8"))
    doc["training"]["seed"] = args.seed
    signals, fit_seconds = fit_signals(backbone)
    print(f"signals fitted in {fit_seconds:.0f}s", flush=True)
    found: dict[str, dict[str, Any]] = {}
    with ds.datasets_directory("mase-scope-neg-") as work:
        team, policy, seconds = ds.train_team(doc, work, backbone)
        gate = ds.scope_gate(team, backbone, None)
        for name in DEV_IN + DEV_OUT + (VALIDATION,) + TEST_IN + TEST_OUT:
            rows = ds.read_rows(ds.DATA / ds.ENVIRONMENT / f"{name}.jsonl")
            texts = [r["text"] for r in rows]
            found[name] = {"below": [bool(s <= gate.floor) for s in gate.scores(texts)]}
            found[name] |= {v: [float(p) for p in signals[v](texts)] for v in VARIANTS}
            if name in DEV_IN + TEST_IN:  # out-of-scope tickets only need to be answered or not
                found[name]["exact"] = ds.exact_per_ticket(ds.routing_env(team, rows, f"neg_{name}"), policy)
            print(name, len(rows), f"{time.perf_counter() - started:.0f}s", flush=True)

    result: dict[str, Any] = {
        "seed": args.seed,
        "train_seconds": round(seconds, 1),
        "fit_seconds": round(fit_seconds, 1),
        "gate": gate.describe(),
        "thresholds": list(THRESHOLDS),
        "gate_alone_dev": {
            "pooled_oos_dev_answered": pooled_answered(found, "plain", None, True),
            **{n: figures(found, n, "plain", None, True) for n in DEV_IN + DEV_OUT},
        },
    }
    print("gate alone, dev:", result["gate_alone_dev"], flush=True)
    # ---- dev only: curves, what sparing each in-scope dev ticket below the floor costs, the choice ----
    for variant in VARIANTS:
        entry: dict[str, Any] = {
            "dev_auroc": dev_auroc(found, variant, False),
            "dev_auroc_below_floor": dev_auroc(found, variant, True),
            "dev_tradeoff": dev_tradeoff(found, lambda f, k, v=variant: f[v][k]),
        }
        for rule, gated in (("gated", True), ("alone", False)):
            chosen, dev = choose(found, variant, gated)
            entry[rule] = {"chosen_threshold": chosen, "dev": dev}
            print(f"{variant} {rule}: chosen {chosen} (budget {dev['budget']:.3f})", flush=True)
            for tau, row in dev["curve"].items():
                print(f"  tau {tau}: {row}", flush=True)
        print(variant, "AUROC dev", entry["dev_auroc"], "below floor", entry["dev_auroc_below_floor"])
        print(variant, "tradeoff", entry["dev_tradeoff"], flush=True)
        result[variant] = entry
    # ---- the test sets, read once at the chosen thresholds ----
    result["gate_alone_test"] = {n: figures(found, n, "plain", None, True) for n in TEST_IN + TEST_OUT}
    for variant in VARIANTS:
        for rule, gated in (("gated", True), ("alone", False)):
            tau = result[variant][rule]["chosen_threshold"]
            result[variant][rule]["measured"] = (
                None
                if tau is None
                else {n: figures(found, n, variant, tau, gated) for n in TEST_IN + TEST_OUT}
            )
    result |= {"seconds": round(time.perf_counter() - started, 1), "per_ticket": found}
    summary = {"gate_alone": result["gate_alone_test"]} | {
        f"{v}.{rule}@{result[v][rule]['chosen_threshold']}": result[v][rule]["measured"]
        for v in VARIANTS
        for rule in ("gated", "alone")
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
