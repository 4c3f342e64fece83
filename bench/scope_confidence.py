"""One-off study (docs/experiments/2026-12-05-out-of-scope.md, 2026-12-06): the team's confidence as a second
signal for the scope gate. A ticket is turned away only when the gate's score is at or below its floor AND the
trained team's least sure decision on it (calibrated chosen-action probability, as the runtime's breaker reads
it) is below a threshold; beside it the plain classifier's most probable intent as a stand-in. Each threshold
is chosen on dev only by one rule (`MAX_EXTRA_ANSWERED`); the script prints the dev curves and what sparing
each in-scope dev ticket costs, then the figures for the chosen thresholds (to be read once).

    python bench/scope_confidence.py [--seed 0] [--quick] [--out F.json]

Reuses bench/datasets.py (the shipped template trained as shipped, its deployment's scope gate).
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

from bench import datasets as ds  # noqa: E402

DEV_IN = ("in_scope_handwritten_dev",)  # in-scope dev (the validation split anchors the gate: uninformative)
DEV_OUT = ("out_of_scope_generated_dev", "out_of_scope_dev")
TEST_IN = ("test", "handwritten", "handwritten_voices")
TEST_OUT = ("out_of_scope_test", "out_of_scope_voices")
THRESHOLDS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 1.01)  # 0: no gate; 1.01: alone  # fmt: skip
MAX_EXTRA_ANSWERED = 0.01  # the dev rule: oos dev answered may rise at most 1 point over the gate alone


def recording_policy(team_policy: Any, record: list[float]):
    """The greedy team, recording each choosing agent's calibrated chosen-action probability."""
    from serving.breaker import choosing_agents

    t = team_policy.temperature

    def act(observations):
        agents = team_policy.agents
        present = torch.tensor([a in observations for a in agents])
        o = team_policy.featurize([observations.get(a) for a in agents], team_policy.obs_dim)
        with torch.no_grad():
            logits, _ = team_policy.actor(
                o.unsqueeze(0), None, 0.0, present.unsqueeze(0),
                team_policy.valid_actions(observations).unsqueeze(0),
            )  # fmt: skip
        logits = logits[0]
        scaled = logits / (t.unsqueeze(-1) if t is not None else 1.0)
        probs = torch.softmax(scaled, -1)
        chosen = logits.argmax(-1)
        live = {a: observations[a] for a in agents if a in observations}
        for a in choosing_agents(live):
            i = agents.index(a)
            record.append(float(probs[i, chosen[i]]))
        return {a: int(chosen[i]) for i, a in enumerate(agents) if a in observations}

    return act


def play(
    team: Any, team_policy: Any, rows: list, name: str
) -> tuple[list[bool], list[float], list[list[float]]]:
    """Per ticket: exact match, the least sure decision of the episode, and every decision's confidence."""
    record: list[float] = []
    starts: list[int] = []
    env = ds.routing_env(team, rows, name)
    act = recording_policy(team_policy, record)
    exact = ds.exact_per_ticket(env, act, before_each=lambda: starts.append(len(record)))
    steps = [record[a:b] for a, b in zip(starts, starts[1:] + [len(record)], strict=True)]
    return exact, [min(s) if s else 1.0 for s in steps], steps


SIGNALS = {
    "team_least": lambda f, k: f["least"][k],
    "team_first": lambda f, k: f["steps"][k][0],
    "plain_max": lambda f, k: f["plain"][k],
}


def dev_tradeoff(found: dict, pick) -> list[str]:
    """For each in-scope dev ticket below the floor (most confident first): the threshold that spares it,
    how many such tickets it spares, and the pooled out-of-scope dev share answered then."""
    inside = [(pick(found[n], k), b) for n in DEV_IN for k, b in enumerate(found[n]["below"])]
    outside = [(pick(found[n], k), b) for n in DEV_OUT for k, b in enumerate(found[n]["below"])]
    lines = []
    for c in sorted({v for v, b in inside if b}, reverse=True):
        spared = sum(b and v >= c for v, b in inside)
        answered = 1 - np.mean([b and v < c for v, b in outside])
        lines.append(
            f"tau {c:.4f}: spares {spared}/{sum(b for _, b in inside)}, oos dev answered {answered:.3f}"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    from serving.model import resolve_checkpoint
    from training.mappo import load_policy

    torch.set_num_threads(1)
    backbone = ds.Backbone.load("default")
    doc = json.loads(ds.TEMPLATE.read_text(encoding="utf-8"))
    doc["training"]["seed"] = args.seed
    if args.quick:
        doc["training"] |= ds.QUICK_TRAINING
        doc["environment"]["params"] |= ds.QUICK_START
    started = time.perf_counter()
    with ds.datasets_directory("mase-scope-conf-") as work:
        team, _, seconds = ds.train_team(doc, work, backbone)
        team_policy = load_policy(team, resolve_checkpoint(work / "run"), backbone)
        print("calibrated", team_policy.temperature is not None, flush=True)
        gate = ds.scope_gate(team, backbone, None)
        # the plain classifier's most probable intent, a dev-only stand-in (the bench's baseline on the train split)
        train = ds.read_rows(ds.DATA / ds.ENVIRONMENT / "train.jsonl")
        plain = ds.PlainClassifier.fit(
            backbone.encode, train, sorted({i for r in train for i in r["intents"]})
        )
        found: dict[str, dict[str, Any]] = {}
        for name in DEV_IN + DEV_OUT + TEST_IN + TEST_OUT:
            rows = ds.read_rows(ds.DATA / ds.ENVIRONMENT / f"{name}.jsonl")
            if args.quick:
                rows = ds.spread(rows, 30)
            outside = name in DEV_OUT + TEST_OUT
            played = rows
            if outside:  # the loader wants an intent; the label changes no decision, only exact match
                played = [r | {"intents": ["order_tracking"]} for r in rows]
            exact, least, steps = play(team, team_policy, played, f"conf_{name}")
            scores = gate.scores([r["text"] for r in rows])
            found[name] = {
                "exact": exact,
                "least": least,
                "steps": steps,
                "below": [bool(s <= gate.floor) for s in scores],
                "plain": [float(p.max()) for p in plain.probabilities([r["text"] for r in rows])],
            }
            print(name, len(rows), f"{time.perf_counter() - started:.0f}s", flush=True)

    def figures(name: str, tau: float, key: str = "least") -> dict[str, float]:
        f = found[name]
        away = np.array(f["below"]) & (np.array(f[key]) < tau)
        exact = np.array(f["exact"])
        if name in DEV_OUT + TEST_OUT:
            return {"answered": float(1 - away.mean())}
        return {
            "before": float(exact.mean()),
            "after": float((exact & ~away).mean()),
            "away": float(away.mean()),
        }

    def choose(key: str) -> tuple[float, dict, dict]:
        """The most permissive threshold whose pooled oos dev answered stays within the budget (dev only)."""
        curve = {tau: {n: figures(n, tau, key) for n in DEV_IN + DEV_OUT} for tau in THRESHOLDS}
        pooled = {tau: float(np.mean(np.concatenate([
            np.array(found[n]["below"]) & (np.array(found[n][key]) < tau) for n in DEV_OUT]))) for tau in THRESHOLDS}  # fmt: skip
        alone = 1 - pooled[THRESHOLDS[-1]]
        chosen = min(tau for tau in THRESHOLDS if 1 - pooled[tau] <= alone + MAX_EXTRA_ANSWERED)
        for tau in THRESHOLDS:
            print(f"{key} tau {tau}: pooled oos dev answered {1 - pooled[tau]:.3f}", curve[tau], flush=True)
        print(key, "chosen", chosen)
        return chosen, curve, pooled

    for (
        signal,
        pick,
    ) in SIGNALS.items():  # dev only: what sparing each in-scope dev ticket below the floor costs
        print(signal, dev_tradeoff(found, pick), flush=True)
    result = {
        "seed": args.seed,
        "quick": args.quick,
        "train_seconds": round(seconds, 1),
        "gate": gate.describe(),
    }
    for key in ("least", "plain"):  # the team's least sure decision (the study's lever); the plain stand-in
        chosen, curve, pooled = choose(key)
        result[key] = {
            "dev_curve": {str(t): c | {"pooled_oos_dev_answered": 1 - pooled[t]} for t, c in curve.items()},
            "chosen_threshold": chosen,
            "measured": {n: {"gate_alone": figures(n, THRESHOLDS[-1]), "with_confidence": figures(n, chosen, key)}
                         for n in TEST_IN + TEST_OUT},
        }  # fmt: skip
    result |= {"seconds": round(time.perf_counter() - started, 1), "per_ticket": found}
    print(json.dumps({k: result[k]["measured"] for k in ("least", "plain")}, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
