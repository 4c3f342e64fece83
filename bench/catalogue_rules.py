"""The rule fallback for an intent catalogue it was never written for, measured where the hand-written one
exists: the customer-service catalogue.

Both routers are tuned the product's way (`KeywordRouter.tuned`: exceptions and n-grams mined on the
labelled training tickets, thresholds chosen by exact match on them) and differ only in where their
starting patterns come from:

- ``hand``: the hand-written patterns of the eight shipped intents (what a rule engineer wrote);
- ``generic``: what a product manager declares for any catalogue (`rules.catalogue_patterns` with
  ``hand=False``): each intent's keywords (none are declared for the shipped eight) and the content words
  of its description — what `rules_router` builds for a catalogue of a spec's own;
- with ``--embed`` also ``generic_nearest_description`` / ``generic_nearest_example`` (and the same over
  ``hand``): when no rule fires, the intent whose description (or whose single-intent training tickets'
  mean) is nearest, by cosine on the frozen backbone's sentence vectors, to one of the ticket's clauses —
  instead of the most frequent training intent.

Scored by exact match of the router's intents on the test split, the held-out phrasing styles and the
hand-written tickets (other authors). Keys in bench/README.md (section bench/catalogue_rules.py).

    python bench/catalogue_rules.py --out FILE.json [--embed] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from agents.envs.clauses import split_clauses  # noqa: E402
from agents.envs.customer_service.catalogue import SHIPPED  # noqa: E402
from agents.envs.customer_service.rules import KeywordRouter  # noqa: E402
from agents.envs.customer_service.tickets import load_tickets  # noqa: E402

SETS = {"test": "test", "holdout": "holdout_styles", "handwritten": "handwritten"}


def exact(predict, tickets) -> float:
    """Share of tickets whose predicted intents equal the true ones."""
    return round(sum(tuple(predict(t)) == t.intents for t in tickets) / max(1, len(tickets)), 3)


def nearest_fallback(router, sims, names):
    """Predict with ``router``; when no rule fires, the intent nearest to one of the ticket's clauses."""

    def predict(ticket):
        found = set(router.predict(ticket.text, fallback=False))
        if not found:
            found = {names[int(sims[ticket.id].max(0).values.argmax())]}
        return tuple(n for n in names if n in found)

    return predict


def clause_similarities(backbone, tickets, anchors):
    """Per ticket id: [clauses, intents] cosine similarities of its clauses to the anchor vectors."""
    import torch

    pieces = [split_clauses(t.text) for t in tickets]
    flat = [c for p in pieces for c in p]
    vectors = torch.cat([backbone.encode(flat[i : i + 512]).float() for i in range(0, len(flat), 512)])
    sims = torch.nn.functional.normalize(vectors, dim=-1) @ anchors.T
    out, k = {}, 0
    for ticket, p in zip(tickets, pieces, strict=True):
        out[ticket.id], k = sims[k : k + len(p)], k + len(p)
    return out


def anchors_of(backbone, train, names):
    """(descriptions, examples): each intent's description vector, and the mean of its single-intent
    training tickets' vectors (the description's where it has none)."""
    import torch

    def encode(texts):
        return torch.nn.functional.normalize(backbone.encode(texts).float(), dim=-1)

    descriptions = encode([f"{n.replace('_', ' ')}: {SHIPPED.descriptions[n]}" for n in names])
    single = [t for t in train if len(t.intents) == 1]
    vectors = torch.cat([encode([t.text for t in single[i : i + 512]]) for i in range(0, len(single), 512)])
    rows = []
    for k, name in enumerate(names):
        mine = [i for i, t in enumerate(single) if t.intents[0] == name]
        rows.append(vectors[mine].mean(0) if mine else descriptions[k])
    return descriptions, torch.nn.functional.normalize(torch.stack(rows), dim=-1)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--quick", action="store_true", help="600 training and 100 scored tickets per set")
    parser.add_argument("--embed", action="store_true", help="also the nearest-description/example fallbacks")
    args = parser.parse_args(argv)
    train = load_tickets("train")[: 600 if args.quick else None]
    sets = {key: load_tickets(name)[: 100 if args.quick else None] for key, name in SETS.items()}
    names = SHIPPED.names
    out: dict = {
        "quick": args.quick,
        "tickets": {"train": len(train), **{k: len(v) for k, v in sets.items()}},
    }
    routers = {}
    for label, hand in (("hand", True), ("generic", False)):
        started = time.perf_counter()
        routers[label] = KeywordRouter.tuned(train, SHIPPED, hand=hand)
        out[label] = {key: exact(lambda t, r=routers[label]: r.predict(t.text), v) for key, v in sets.items()}
        out[label]["tune_seconds"] = round(time.perf_counter() - started, 1)
    if args.embed:
        from agents.backbone import Backbone

        backbone = Backbone.load("default", pooling="mean", max_length=64)
        descriptions, examples = anchors_of(backbone, train, names)
        for anchor_name, anchors in (("description", descriptions), ("example", examples)):
            sims = {key: clause_similarities(backbone, v, anchors) for key, v in sets.items()}
            for label, router in routers.items():
                predict = nearest_fallback(router, {i: s for d in sims.values() for i, s in d.items()}, names)
                out[f"{label}_nearest_{anchor_name}"] = {key: exact(predict, v) for key, v in sets.items()}
    result = {"catalogue_rules": out}
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
