"""Intents accepted onto a deployment's design but not yet served: a product manager accepts a proposed intent
(`accept_proposal`), which puts it on the canvas of the deployment's design (its workflow's draft). From then
on operators may label tickets with it (review's corrections offer it), and the next generation learns it:
`evolution.challenger_spec` gives the challenger the accepted intents and their owners.

Only the intents are taken from the draft, never the rest of it (a draft may be half edited): the challenger
stays the champion's team with a larger catalogue. A new intent changes its owner's action space, so the
champion's checkpoint cannot teach that challenger; it trains from the spec on the champion's tickets plus
the corrections."""

from __future__ import annotations

import copy

from mase_web.deployments.catalogue import example_ticket, intent_catalogue, team_agents
from mase_web.deployments.models import Deployment
from mase_web.workflows.facade import workflow_in_project


def design_draft(deployment: Deployment) -> dict:
    """The spec on the canvas of the deployment's design (its workflow's draft), or {} when it has none."""
    workflow = workflow_in_project(deployment.project_id, deployment.workflow_id)
    return dict(workflow.spec or {}) if workflow is not None else {}


def accepted_intents(deployment: Deployment, spec: dict | None = None) -> list[dict]:
    """The draft's intents that ``spec`` (the deployed one by default) does not know, as [{name,
    description, owners}], ``owners`` the draft's agents given each (only agents of ``spec``'s team)."""
    spec = deployment.spec or {} if spec is None else spec
    draft = design_draft(deployment)
    declared = ((draft.get("environment") or {}).get("params") or {}).get("intents")
    if not isinstance(declared, list) or not declared:
        return []  # a draft without its own catalogue adds nothing to the deployed one
    known = {i["name"] for i in intent_catalogue(spec)}
    members = {str(a.get("id")) for a in spec.get("agents") or []}
    found = []
    for intent in intent_catalogue(draft):
        if intent["name"] in known:
            continue
        owners = [
            str(a["id"])
            for a in draft.get("agents") or []
            if str(a.get("id")) in members and intent["name"] in (a.get("intents") or [])
        ]
        found.append({**intent, "owners": owners})
    return found


def with_accepted_intents(deployment: Deployment, spec: dict) -> tuple[dict, list[str]]:
    """``spec`` with the intents accepted onto the deployment's design: its catalogue written out (as
    `intent_catalogue` reads it) plus the new ones, each given to its owners. Returns the spec (a copy when
    changed) and the names added."""
    added = accepted_intents(deployment, spec)
    if not added:
        return spec, []
    spec = copy.deepcopy(spec)
    params = spec.setdefault("environment", {}).setdefault("params", {})
    declared = params.get("intents") if isinstance(params.get("intents"), list) else []
    entries = [{"name": i["name"], "description": i["description"]} for i in added]
    params["intents"] = [*(declared or intent_catalogue(spec)), *entries]  # declared keywords are kept
    for agent in spec.get("agents") or []:
        given = [i["name"] for i in added if str(agent.get("id")) in i["owners"]]
        if given:
            agent["intents"] = [*(agent.get("intents") or []), *given]
    return spec, [i["name"] for i in added]


def deployment_catalogue(deployment: Deployment) -> dict:
    """What a correction may name (review checks against it, the annotation queue offers it): the intents
    (with descriptions), those accepted onto the deployment's design among them (the next generation learns
    them from these labels), and the team's agents."""
    spec = deployment.spec or {}
    accepted = [{"name": i["name"], "description": i["description"]} for i in accepted_intents(deployment)]
    return {"intents": intent_catalogue(spec) + accepted, "agents": team_agents(spec)}


def catalogue_with_example(deployment: Deployment) -> dict:
    """`deployment_catalogue` and an ``example`` ticket of the team's own data (`example_ticket`), as the
    catalogue endpoint answers: the ticket console shows the example (the checks of a correction need none)."""
    return {**deployment_catalogue(deployment), "example": example_ticket(deployment.spec or {})}
