"""What the Compare page shows of several runs: metric series, a summary row each (final metrics, wall
time, training budget) and the differences between their specs."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from mase_web.runs.models import Run, RunEvent

MAX_DIFF_ROWS = 300
MISSING = None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def metric_series(run: Run) -> dict[str, list[list[float]]]:
    """metric → [[episode, value], …] from the run's metrics events."""
    series: dict[str, list[list[float]]] = {}
    for payload in (
        RunEvent.objects.filter(run=run, type="metrics").order_by("seq").values_list("payload", flat=True)
    ):
        x = payload.get("episode", payload.get("step"))
        if x is None:
            continue
        for key, value in payload.items():
            if key not in ("episode", "step") and _number(value):
                series.setdefault(key, []).append([x, value])
    return series


def wall_seconds(run: Run) -> float | None:
    if run.started_at is None:
        return None
    end = run.finished_at or timezone.now()
    return max(0.0, (end - run.started_at).total_seconds())


def summary(run: Run, series: dict[str, list[list[float]]]) -> dict:
    training = run.spec.get("training") or {}
    episodes_done = max((points[-1][0] for points in series.values() if points), default=None)
    return {
        "final_metrics": {k: v for k, v in (run.metrics or {}).items() if _number(v)},
        "wall_seconds": wall_seconds(run),
        "budget_episodes": training.get("episodes"),
        "episodes_done": episodes_done,
        "algorithm": training.get("algorithm", "reinforce"),
        "seed": training.get("seed"),
        "device": run.device,
        "kind": run.kind,
        "tags": sorted(t.name for t in run.tag_rows.all()),
    }


def _key(index: int, item: Any) -> str:
    """Items of a list are named by their id when they have one (agents), else by position.

    An edge is named by its kind and endpoints: a dependency and a communication edge may join the same
    two agents, and keyed by endpoints alone one would hide the other.
    """
    if isinstance(item, dict):
        for name in ("id", "name"):
            if isinstance(item.get(name), str):
                return item[name]
        if isinstance(item.get("source"), str) and isinstance(item.get("target"), str):
            endpoints = f"{item['source']}→{item['target']}"
            return f"{item['kind']} {endpoints}" if isinstance(item.get("kind"), str) else endpoints
    return str(index)


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A spec as {"training.lr": 0.001, "agents[writer].prompt": "…", …}; lists of plain values stay whole."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, child in value.items():
            out.update(flatten(child, f"{prefix}.{key}" if prefix else str(key)))
        return out or {prefix: {}}
    if isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        out = {}
        seen: set[str] = set()
        for index, item in enumerate(value):
            key = _key(index, item)
            if key in seen:  # two items with one name (a repeated edge): the position tells them apart
                key = f"{key} #{index}"
            seen.add(key)
            out.update(flatten(item, f"{prefix}[{key}]"))
        return out
    return {prefix: value}


def config_diff(specs: list[dict]) -> list[dict]:
    """The settings whose values differ between the specs: [{"path": …, "values": [one per spec]}]."""
    flat = [flatten(spec) for spec in specs]
    paths = sorted({path for f in flat for path in f})
    rows = []
    for path in paths:
        values = [f.get(path, MISSING) for f in flat]
        if any(v != values[0] for v in values[1:]):
            rows.append({"path": path, "values": values})
            if len(rows) >= MAX_DIFF_ROWS:
                break
    return rows


def compare(runs: list[Run]) -> dict:
    rows = []
    for run in runs:
        series = metric_series(run)
        rows.append(
            {
                "id": run.pk,
                "name": run.name,
                "state": run.state,
                "series": series,
                "summary": summary(run, series),
            }
        )
    return {"runs": rows, "config_diff": config_diff([run.spec for run in runs])}
