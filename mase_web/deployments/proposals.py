"""New intents proposed from what the team could not place: the deployment's out-of-scope tickets (and those
an operator corrected to "none of these") grouped by meaning (`serving.intent_proposals`), each group named
by its distinctive words, with its tickets, how often it occurs and the catalogue intent it lies close to,
if any. A product manager may then add it to the catalogue and label it, and the next generation learns it."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from mase_web.deployments.catalogue import intent_catalogue
from mase_web.deployments.models import Correction, Deployment, Episode
from serving.intent_proposals import propose_intents

MAX_TICKETS = 500  # the newest; grouping is quadratic in them


def unplaced_texts(deployment: Deployment) -> list[str]:
    """The newest tickets the team found out of scope or operators corrected to "none of these"."""
    none_of_these = Correction.objects.filter(episode__deployment=deployment, intents=[], owner="")
    unplaced = Q(status=Episode.Status.OUT_OF_SCOPE) | Q(pk__in=none_of_these.values("episode"))
    return list(
        deployment.episodes.filter(unplaced)
        .order_by("-created_at")
        .values_list("task_text", flat=True)[:MAX_TICKETS]
    )


def intent_proposals(deployment: Deployment) -> dict[str, Any]:
    """{tickets: how many unplaced tickets were grouped, proposals: [Proposal.as_dict()]}."""
    texts = unplaced_texts(deployment)
    if not texts:
        return {"tickets": 0, "proposals": []}
    import torch

    from agents.spec import load_spec
    from mase_web.deployments.runtimes import backbone_for

    backbone = backbone_for(load_spec(deployment.spec, require_environment=True))
    described = [i for i in intent_catalogue(deployment.spec) if i.get("description")]
    with torch.no_grad():
        vectors = backbone.encode(texts).float().numpy()
        known = backbone.encode([i["description"] for i in described]).float().numpy() if described else []
    catalogue = {intent["name"]: known[k] for k, intent in enumerate(described)}
    proposals = propose_intents(texts, vectors, catalogue=catalogue or None)
    return {"tickets": len(texts), "proposals": [p.as_dict() for p in proposals]}
