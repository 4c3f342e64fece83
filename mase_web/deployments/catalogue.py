"""What a deployment's tickets may be labelled with: its intent catalogue (each intent with what it means)
and its team's agents (who may own a ticket). What a deployment's corrections may name adds the intents
accepted onto its design (`accepted_intents.deployment_catalogue`)."""

from __future__ import annotations

from typing import Any

from agents.envs.routing import routing
from agents.spec import intent_catalogues


def intent_catalogue(spec: dict) -> list[dict[str, str]]:
    """The deployment's intents as [{name, description}]: the spec's own catalogue when its environment
    declares one (``environment.params.intents``; a name its environment ships may stand alone and keeps the
    shipped description), else the environment's built-in catalogue (`agents.spec.intent_catalogues`)."""
    environment = spec.get("environment") or {}
    shipped = {i["name"]: dict(i) for i in intent_catalogues().get(environment.get("name"), [])}
    declared = (environment.get("params") or {}).get("intents")
    if not isinstance(declared, list) or not declared:
        return list(shipped.values())
    entries = (_entry(item) for item in declared)
    return [
        {
            "name": e["name"],
            "description": e["description"] or shipped.get(e["name"], {}).get("description", ""),
        }
        for e in entries
        if e["name"]
    ]


def _entry(item: Any) -> dict[str, str]:
    if isinstance(item, str):
        return {"name": item, "description": ""}
    item = item if isinstance(item, dict) else {}
    return {"name": str(item.get("name") or ""), "description": str(item.get("description") or "")}


def team_agents(spec: dict) -> list[dict[str, Any]]:
    """The deployed team's agents as [{id, intents, reviews}]: who may own a ticket, what each owns now, and
    whether it is a reviewer (`owner_problem` refuses it as an owner)."""
    agents = spec.get("agents") or []
    reviewers = _reviewer_roles(spec)
    return [
        {"id": str(a["id"]), "intents": list(a.get("intents") or []), "reviews": _reviews(a, reviewers)}
        for a in agents
        if a.get("id")
    ]


def _reviewer_roles(spec: dict) -> tuple[str, ...]:
    """The roles of the spec's environment that review answers (its routing interface's ``reviewer_roles``)."""
    interface = routing((spec.get("environment") or {}).get("name"))
    return tuple(getattr(interface, "reviewer_roles", ()) if interface is not None else ())


def _reviews(agent: dict, reviewers: tuple[str, ...]) -> bool:
    return str(agent.get("role") or "") in reviewers


def owner_problem(spec: dict, owner: str) -> str | None:
    """Why ``owner`` cannot own a ticket of the deployed team, or None: it is no agent of the team, or a
    reviewer (its environment's ``reviewer_roles``), which approves answers and owns no intents."""
    agents = {str(a["id"]): a for a in spec.get("agents") or [] if a.get("id")}
    if owner not in agents:
        return f"{owner!r} is no agent of this deployment's team (its agents: {', '.join(agents)})"
    reviewers = _reviewer_roles(spec)
    if _reviews(agents[owner], reviewers):
        owners = ", ".join(name for name, a in agents.items() if not _reviews(a, reviewers))
        role = agents[owner]["role"]
        return f"{owner!r} is the team's {role}: it reviews answers and owns no intents (choose {owners})"
    return None


def example_ticket(spec: dict) -> str | None:
    """A ticket of the deployment's own data to show as an example of what its team answers: the first of its
    tickets (``environment.params.tickets``) that asks for the catalogue's first intent alone, else the first
    asking for it; None for a team without routing tickets, or when they cannot be read."""
    environment = spec.get("environment") or {}
    interface = routing(environment.get("name"))
    catalogue = intent_catalogue(spec)
    if interface is None or not catalogue:
        return None
    params = environment.get("params") or {}
    try:
        tickets = interface.load_tickets(str(params.get("tickets") or "train"), params)
    except (ValueError, OSError):
        return None  # a ticket file gone or broken since the deployment was made: no example, no error
    first = catalogue[0]["name"]
    asking = [t for t in tickets if first in t.intents]
    alone = [t for t in asking if tuple(t.intents) == (first,)]
    return (alone or asking)[0].text if asking else None
