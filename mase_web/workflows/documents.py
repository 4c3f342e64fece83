"""Plain functions over team-spec documents for the workflow API: the safety guard a draft must pass
before it is stored, the layout check, the template gallery, and the diff between two versions.

No Django models here; the library (`agents.spec`) stays the one judge of what a valid spec is.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from agents.envs import env_class
from agents.spec import LIMITS, json_type_name

TEMPLATE_DIR = Path(__file__).resolve().parents[2] / "examples"
# Gallery order: the starter task first, then the shipped workflows (docs/design.md#environments).
TEMPLATE_ORDER = (
    "number_guessing",
    "customer_service",
    "research_report",
    "collaborative_writing",
    "code_generation",
)
MAX_LAYOUT_NODES = LIMITS["agents"] * 4


def document_problems(doc: Any) -> dict[str, list[str]]:
    """Why `doc` cannot even be stored as a draft (not an object, too deep, too big); {} when storable.

    Drafts may be invalid specs (they are work in progress), but never hostile documents.
    Iterative, so deep nesting cannot exhaust the stack.
    """
    if not isinstance(doc, dict):
        return {"$": [f"must be a JSON object (a team spec), got {json_type_name(doc)}"]}
    stack: list[tuple[Any, str, int]] = [(doc, "$", 0)]
    count = 0
    while stack:
        value, path, depth = stack.pop()
        count += 1
        if count > LIMITS["values"]:
            return {"$": [f"document holds more than {LIMITS['values']:,} values; it is far too large"]}
        if depth > LIMITS["depth"]:
            return {path: [f"nested deeper than {LIMITS['depth']} levels; flatten this value"]}
        if isinstance(value, dict):
            stack.extend((v, f"{path}.{k}", depth + 1) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            return {path: ["must be a finite number"]}
    size = len(json.dumps(doc, ensure_ascii=False).encode("utf-8"))
    if size > LIMITS["document_bytes"]:
        return {"$": [f"document is {size:,} bytes serialised; the limit is {LIMITS['document_bytes']:,}"]}
    return {}


def layout_problems(layout: Any) -> dict[str, list[str]]:
    """Checks a layout {agent_id: {"x": number, "y": number}}; {} when it is fine."""
    if not isinstance(layout, dict):
        return {"$": [f"must be an object mapping agent ids to positions, got {json_type_name(layout)}"]}
    if len(layout) > MAX_LAYOUT_NODES:
        return {"$": [f"at most {MAX_LAYOUT_NODES} positions"]}
    errors: dict[str, list[str]] = {}
    for key, pos in layout.items():
        path = f"$.{key}"
        if len(key) > 40:
            errors[path] = ["agent ids are at most 40 characters"]
        elif not isinstance(pos, dict) or set(pos) != {"x", "y"}:
            errors[path] = ['must be {"x": number, "y": number}']
        elif not all(
            isinstance(pos[c], (int, float))
            and not isinstance(pos[c], bool)
            and math.isfinite(pos[c])
            and abs(pos[c]) < 1e7
            for c in ("x", "y")
        ):
            errors[path] = ["x and y must be finite numbers below 10,000,000 in size"]
    return errors


def team_size(spec: dict) -> int:
    """How many agents the team plays: an environment that declares its agents in groups (a large team's
    `groups`, one box per group on the canvas) counts the groups' members, not the boxes."""
    agents = spec.get("agents") or []
    environment = spec.get("environment") or {}
    try:
        members = getattr(env_class(str(environment.get("name"))), "member_ids", None)
        return len(members(environment.get("params") or {})) if callable(members) else len(agents)
    except Exception:  # noqa: BLE001 - an unknown environment or bad groups: the boxes, as drawn
        return len(agents)


@dataclass(frozen=True)
class Template:
    """One gallery entry: a shipped team spec (examples/)."""

    slug: str
    spec: dict

    def summary(self) -> dict[str, Any]:
        agents = self.spec.get("agents", [])
        return {
            "slug": self.slug,
            "name": self.spec.get("name", self.slug),
            "description": self.spec.get("description", ""),
            "agents": team_size(self.spec),
            "roles": sorted({a.get("role", "") for a in agents}),
            "environment": (self.spec.get("environment") or {}).get("name"),
        }


@lru_cache(maxsize=1)
def _templates() -> dict[str, Template]:
    found = {p.stem: p for p in TEMPLATE_DIR.glob("*.json")}
    order = [s for s in TEMPLATE_ORDER if s in found] + sorted(set(found) - set(TEMPLATE_ORDER))
    return {slug: Template(slug, json.loads(found[slug].read_text())) for slug in order}


def templates() -> list[Template]:
    """The template gallery, in display order."""
    return list(_templates().values())


def template(slug: str) -> Template | None:
    """One template by slug, or None."""
    return _templates().get(slug)


# ----------------------------------------------------------------------------------------------------
# Diff
# ----------------------------------------------------------------------------------------------------

# Lists whose items have an identity: compared item by item by key, not by position.
_KEYED_LISTS = {
    "$.agents": lambda a: a.get("id") if isinstance(a, dict) else None,
    "$.edges": lambda e: (
        f"{e.get('source')}->{e.get('target')} ({e.get('kind', 'communication')})"
        if isinstance(e, dict)
        else None
    ),
    "$.reward.terms": lambda t: t.get("term") if isinstance(t, dict) else None,
    "$.evolution.phases": lambda p: p.get("name") if isinstance(p, dict) else None,
}


def _keyed(items: list, key) -> dict[str, Any] | None:
    out: dict[str, Any] = {}
    for item in items:
        k = key(item)
        if k is None or k in out:
            return None  # no usable identity: compare as a whole
        out[str(k)] = item
    return out


def _walk(before: Any, after: Any, path: str, changes: list[dict]) -> None:
    if before == after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for k in list(before) + [k for k in after if k not in before]:
            p = f"{path}.{k}"
            if k not in after:
                changes.append({"path": p, "kind": "removed", "before": before[k], "after": None})
            elif k not in before:
                changes.append({"path": p, "kind": "added", "before": None, "after": after[k]})
            else:
                _walk(before[k], after[k], p, changes)
        return
    if isinstance(before, list) and isinstance(after, list) and path in _KEYED_LISTS:
        key = _KEYED_LISTS[path]
        kb, ka = _keyed(before, key), _keyed(after, key)
        if kb is not None and ka is not None:
            for k in list(kb) + [k for k in ka if k not in kb]:
                p = f"{path}[{k}]"
                if k not in ka:
                    changes.append({"path": p, "kind": "removed", "before": kb[k], "after": None})
                elif k not in kb:
                    changes.append({"path": p, "kind": "added", "before": None, "after": ka[k]})
                else:
                    _walk(kb[k], ka[k], p, changes)
            return
    changes.append({"path": path, "kind": "changed", "before": before, "after": after})


def diff_specs(before: Any, after: Any) -> dict[str, Any]:
    """What changed from `before` to `after`: every change with its path, plus an agent/edge summary.

    Agents are matched by id, edges by (source, target, kind), reward terms by name, phases by name,
    so inserting an agent does not report every later agent as changed.
    """
    changes: list[dict] = []
    _walk(before, after, "$", changes)
    agents: dict[str, list[str]] = {"added": [], "removed": [], "changed": []}
    edges: dict[str, list[str]] = {"added": [], "removed": []}
    for c in changes:
        p = c["path"]
        if p.startswith("$.agents[") and p != "$.agents":
            agent_id = p[len("$.agents[") :].split("]", 1)[0]
            kind = c["kind"] if p.endswith("]") and c["kind"] != "changed" else "changed"
            if agent_id not in agents[kind]:
                agents[kind].append(agent_id)
        elif p.startswith("$.edges[") and c["kind"] in ("added", "removed"):
            edges[c["kind"]].append(p[len("$.edges[") : -1])
    return {"changes": changes, "agents": agents, "edges": edges}
