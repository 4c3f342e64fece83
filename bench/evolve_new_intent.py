"""Evolution benchmark, section ``new_intent`` (`bench/evolve.py --sections new_intent`): an intent the
deployed team does not know appears in a share of its traffic; a product manager accepts it onto the canvas
of the deployment's design (the product's accept-proposal endpoint: `deployments.accept_proposal`, which
puts it in the design's draft and gives it to an agent); operators then correct the team's wrong answers —
the new intent's tickets among them, named with the accepted intent — and each batch of K corrections
evolves the deployment (`evolution.evolve`: the challenger's spec gains the accepted intent,
`deployments.accepted_intents`), the challenger is trained here and judged on the slice.

Traffic: the new intent's 60 hand-written tickets (`new_intent_train.jsonl`) mixed with known-intent
tickets of the shipped test split so that the new intent is ``share`` of the stream; the rest of the test
split is the *others* set nobody reviews (exact match), and `new_intent_test.jsonl` (30 other tickets of
the intent, never played) measures the new intent's recall: the share whose answer names it.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "customer_service"
INTENT = {
    "name": "cancel_subscription",
    "description": "Cancel a subscription, membership or recurring plan; stop its renewal or its charges.",
    "owner": "dispute_mediator",
}


def traffic(known: list[dict], new: list[dict], share: float, seed: int) -> tuple[list[dict], list[dict]]:
    """(the stream: all of ``new`` and as many ``known`` tickets as make ``new`` a ``share`` of it,
    shuffled; the known tickets left over, the *others* set)."""
    rng = random.Random(seed)
    known = known[:]
    rng.shuffle(known)
    count = round(len(new) * (1 - share) / share)
    stream = new + known[:count]
    rng.shuffle(stream)
    return stream, known[count:]


def accept_on_canvas(deployment, pm) -> dict:
    """The product manager accepts the intent through the product's endpoint (as the page does)."""
    from django.conf import settings
    from rest_framework.test import APIClient

    if "testserver" not in settings.ALLOWED_HOSTS and "*" not in settings.ALLOWED_HOSTS:
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the in-process client's host
    client = APIClient()
    client.force_authenticate(pm)
    body = {k: INTENT[k] for k in ("name", "description", "owner")}
    answer = client.post(f"/api/deployments/{deployment.pk}/intent-proposals/accept/", body, format="json")
    if answer.status_code != 201:
        raise SystemExit(f"accepting the intent failed: {answer.status_code} {answer.content[:500]!r}")
    return answer.json()


def correction_allowed(deployment) -> bool:
    """Whether review's correction form accepts the new intent's name (the serializer operators go through)."""
    from mase_web.deployments.corrections import CorrectionRequestSerializer

    body = CorrectionRequestSerializer(data={"intents": [INTENT["name"]]}, context={"deployment": deployment})
    return body.is_valid()


def figures(answers_of, spec: dict, checkpoint: str, held: list[dict], others: list[dict]) -> dict:
    """Recall of the new intent on ``held`` and exact match on ``others``, through a serving runtime."""
    got = answers_of(spec, checkpoint, [t["text"] for t in held + others])
    mine, theirs = got[: len(held)], got[len(held) :]
    return {
        "recall": sum(INTENT["name"] in g for g in mine) / max(1, len(held)),
        "others": sum(sorted(g) == t["intents"] for g, t in zip(theirs, others, strict=True))
        / max(1, len(others)),
    }


def new_intent(bench, project, users, run, spec, args, policy) -> dict[str, Any]:
    """``evolve.new_intent``; ``bench`` is the `bench.evolve` module (deploy, review, one generation)."""
    from mase_web.deployments.evolution_eval import answers
    from mase_web.deployments.models import Deployment

    known = bench.load_jsonl(DATA / "test.jsonl")
    new, held = (
        bench.load_jsonl(DATA / "new_intent_train.jsonl"),
        bench.load_jsonl(DATA / "new_intent_test.jsonl"),
    )
    if args.quick:
        known, new, held = known[:40], new[:6], held[:4]
    stream, others = traffic(known, new, args.new_intent_share, args.seed)
    deployment = bench.deploy(project, run, spec, "new intent", policy)
    first = figures(answers, spec, deployment.checkpoint, held, others)
    accepted = accept_on_canvas(deployment, users["pm"])
    deployment = Deployment.objects.get(pk=deployment.pk)
    out: dict[str, Any] = {
        "intent": INTENT["name"], "owner": INTENT["owner"], "k": args.new_intent_k,
        "accepted_intents": accepted["intents"], "correction_allowed": correction_allowed(deployment),
        "traffic": {"stream": len(stream), "new_in_stream": len(new), "held": len(held), "others": len(others)},
        "recall_by_generation": [first["recall"]], "others_by_generation": [first["others"]],
        "served_recall_by_generation": [first["recall"]], "served_others_by_generation": [first["others"]],
        "runs": [],
    }  # fmt: skip
    cursor = 0
    for _ in range(args.new_intent_generations):
        if cursor >= len(stream):
            break
        cursor, counts = bench.review_until(
            deployment, users["operator"], stream, cursor, args.new_intent_k, lambda t, p: None
        )
        batch = stream[cursor - counts["played"] : cursor]
        counts["played_new"] = sum(INTENT["name"] in t["intents"] for t in batch)
        record = bench.one_generation(deployment, users["pm"])
        record.update(counts)
        if "checkpoint" in record:
            mine = figures(answers, record.pop("spec"), record.pop("checkpoint"), held, others)
            record["challenger_recall"], record["challenger_others"] = mine["recall"], mine["others"]
            out["recall_by_generation"].append(mine["recall"])
            out["others_by_generation"].append(mine["others"])
        deployment = Deployment.objects.get(pk=deployment.pk)
        served = figures(answers, deployment.spec, deployment.checkpoint, held, others)
        out["served_recall_by_generation"].append(served["recall"])
        out["served_others_by_generation"].append(served["others"])
        out["runs"].append(record)
        print(f"[new_intent] {record}", flush=True)
    out["generations"] = len(out["runs"])
    out["corrections"] = sum(r["corrected"] for r in out["runs"])
    out["promoted"] = sum(bool(r.get("promoted")) for r in out["runs"])
    out["others_change_points"] = [round(100 * (x - first["others"]), 2) for x in out["others_by_generation"]]
    return out
