"""The score of a batch whose tickets carry intents: how many answers name exactly the right intents,
and per intent how often it was found (recall) and how often naming it was right (precision)."""

from __future__ import annotations

from typing import Any


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def batch_score(batch) -> dict[str, Any] | None:
    """{labelled, scored, exact, exact_match, intents: [{intent, support, predicted, correct, precision,
    recall, f1}]} over the batch's finished episodes; None when no ticket carries intents."""
    gold = {t["id"]: set(t["intents"]) for t in batch.tickets if t.get("intents")}
    if not gold:
        return None
    counts: dict[str, dict[str, int]] = {}
    scored = exact = 0
    for task_id, result in batch.episodes.exclude(status="running").values_list("task_id", "result"):
        if task_id not in gold:
            continue
        predicted = set(((result or {}).get("info") or {}).get("predicted_intents") or [])
        truth = gold[task_id]
        scored += 1
        exact += predicted == truth
        for intent in truth | predicted:
            row = counts.setdefault(intent, {"support": 0, "predicted": 0, "correct": 0})
            row["support"] += intent in truth
            row["predicted"] += intent in predicted
            row["correct"] += intent in truth and intent in predicted
    intents = []
    for intent, row in sorted(counts.items(), key=lambda kv: (-kv[1]["support"], kv[0])):
        precision, recall = _ratio(row["correct"], row["predicted"]), _ratio(row["correct"], row["support"])
        f1 = (
            round(2 * precision * recall / (precision + recall), 4)
            if precision is not None and recall is not None and precision + recall > 0
            else None
        )
        intents.append({"intent": intent, **row, "precision": precision, "recall": recall, "f1": f1})
    return {
        "labelled": len(gold),
        "scored": scored,
        "exact": exact,
        "exact_match": _ratio(exact, scored),
        "intents": intents,
    }
