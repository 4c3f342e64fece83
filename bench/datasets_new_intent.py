"""Datasets benchmark, part ``new_intent``: an intent added to the shipped customer-service template with N
labelled tickets (`bench/datasets.py --parts new_intent`).

The template is trained as shipped (``others_exact_match_before``: exact match on the test split). Then,
for each N, a product manager's change is played: the catalogue gains one intent (the shipped eight named
alone keep their descriptions, actions and hand-written rules; the new one has a description only), one
specialist is given it, and the training tickets are the shipped training split plus the first N labelled
tickets of ``new_intent_train.jsonl`` (several voices, written for this benchmark). The trained team is
scored on ``new_intent_test.jsonl`` (another 30 tickets, never trained or selected on: ``recall``, the
share whose answer names the new intent) and on the shipped test split (``others_exact_match_after``).

``min_rows_per_intent`` (``--min-rows-per-intent M``) is the product's oversampling option, set in the
team's ``environment.params`` as a user sets it: the environment repeats the training rows of every intent
with fewer than M of them up to M (`agents.envs.customer_service.oversample`), so the warm start, the
readers and PPO's draws see a few dozen tickets among thousands as often as a mid-sized intent's. The
scoring files are test files and are never oversampled.
"""

from __future__ import annotations

import json
import sys
from typing import Any

NEW_INTENT = {
    "name": "cancel_subscription",
    "description": "Cancel a subscription, membership or recurring plan; stop its renewal or its charges.",
}
OWNER = "dispute_mediator"  # the shipped specialist the product manager gives it to
LABELS = (20, 40, 60)


def add_intent(doc: dict[str, Any], tickets: str, min_rows: int = 0) -> dict[str, Any]:
    """The template with the new intent in its catalogue, owned by `OWNER`, trained on ``tickets`` with
    the product's oversampling option at ``min_rows`` (0: off)."""
    doc = json.loads(json.dumps(doc))
    owned = [i for a in doc["agents"] for i in a.get("intents") or []]
    doc["environment"]["params"] |= {
        "intents": [*({"name": n} for n in owned), NEW_INTENT],
        "tickets": tickets,
        "min_rows_per_intent": int(min_rows),
    }
    for agent in doc["agents"]:
        if agent["id"] == OWNER:
            agent["intents"] = [*agent["intents"], NEW_INTENT["name"]]
            agent["prompt"] = agent.get("prompt", "") + " " + NEW_INTENT["description"]
    return doc


def recall(env: Any, policy: Any, name: str) -> float:
    """Share of ``env``'s tickets (file order, each played once) whose final answer names intent ``name``."""
    hits = 0
    count = len(env.unwrapped.tickets)
    for index in range(count):
        observations, _ = env.reset(seed=index, options={"ticket_index": index})
        info: dict[str, Any] = {}
        while env.agents:
            observations, _, _, _, infos = env.step(policy(observations))
            info = next(iter(infos.values()))
        hits += name in (info.get("predicted_intents") or [])
    return hits / count if count else 0.0


def measure(bench: Any, args: Any, backbone: Any) -> dict[str, Any]:
    """``datasets.new_intent``; ``bench`` is the `bench.datasets` module (its training and scoring helpers).
    ``--new-intent-labels`` picks the Ns (0: the template as shipped, for ``others_exact_match_before``), so
    each can run in its own process."""
    data = bench.DATA / bench.ENVIRONMENT
    doc = json.loads(bench.TEMPLATE.read_text(encoding="utf-8"))
    doc["training"]["seed"] = int(args.seed)
    if args.quick:
        doc["training"] |= bench.QUICK_TRAINING
        doc["environment"]["params"] |= bench.QUICK_START
    base_train = bench.read_rows(data / "train.jsonl")
    base_dev = bench.read_rows(data / "validation.jsonl")
    test = bench.read_rows(data / "test.jsonl")
    pool = bench.read_rows(data / "new_intent_train.jsonl")
    held = bench.read_rows(data / "new_intent_test.jsonl")
    labels = [int(n) for n in (args.new_intent_labels or (0, *LABELS))]  # 0: the template as shipped
    min_rows = max(0, int(args.min_rows_per_intent))
    if args.quick:
        base_train, test, held = bench.spread(base_train, 120), bench.spread(test, 60), bench.spread(held, 10)
    out: dict[str, Any] = {"intent": NEW_INTENT["name"], "owner": OWNER, "min_rows_per_intent": min_rows}
    out |= {
        "labels": [n for n in labels if n],
        "recall": [],
        "others_exact_match_after": [],
        "train_seconds": [],
    }
    with bench.datasets_directory("mase-datasets-new-intent-") as work:
        if 0 in labels:
            team, policy, seconds = bench.train_team(doc, work, backbone)
            out["others_exact_match_before"] = bench.mean(
                bench.exact_per_ticket(bench.routing_env(team, test, "bench_test"), policy)
            )
            out["train_seconds_before"] = round(seconds, 2)
        for n in (n for n in labels if n):
            name = f"bench_new_intent_{n}"
            bench.write_dataset(None, name, base_train + pool[:n], base_dev)
            team, policy, seconds = bench.train_team(add_intent(doc, name, min_rows), work, backbone)
            out["recall"].append(
                recall(bench.routing_env(team, held, "bench_new"), policy, NEW_INTENT["name"])
            )
            out["others_exact_match_after"].append(
                bench.mean(bench.exact_per_ticket(bench.routing_env(team, test, "bench_test"), policy))
            )
            out["train_seconds"].append(round(seconds, 2))
            print(f"[datasets] new_intent N={n}: {out}", flush=True, file=sys.stderr)
    out["tickets"] = {"new_intent_test": len(held), "others_test": len(test), "pool": len(pool)}
    return out
