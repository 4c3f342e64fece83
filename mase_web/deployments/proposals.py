"""New intents proposed from what the team could not place, grouped by meaning (`serving.intent_proposals`),
each group named by its distinctive words, with its tickets, how often it occurs and the catalogue intent it
lies close to, if any. A product manager may then add it to the catalogue and label it, and the next
generation learns it.

The tickets the team could not place are exactly two kinds, counted apart (a ticket is one or the other):

- *out of scope*: tickets turned away as outside what the team can do, nothing played (episode status
  ``out_of_scope``: a routing team's scope gate handed them to a person), unless an operator's standing
  correction has since placed one in an intent or with an owner;
- *none of these*: tickets the team answered that an operator's standing correction marks "none of these".

A ticket merely handed over in review (escalated) or answered by the rule fallback is neither."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet

from mase_web.deployments.catalogue import intent_catalogue
from mase_web.deployments.models import Correction, Deployment, Episode
from serving.intent_proposals import propose_intents

MAX_TICKETS = 500  # the newest; grouping is quadratic in them


def unplaced(deployment: Deployment) -> tuple[QuerySet[Episode], QuerySet[Episode]]:
    """The deployment's tickets it could not place: (out of scope, none of these), see the module docstring."""
    corrections = Correction.objects.filter(episode__deployment=deployment)  # the newest of a ticket stands
    none_of_these = corrections.filter(intents=[], owner="")
    placed = corrections.exclude(intents=[], owner="")
    out_of_scope = Q(status=Episode.Status.OUT_OF_SCOPE)
    return (
        deployment.episodes.filter(out_of_scope).exclude(pk__in=placed.values("episode")),
        deployment.episodes.filter(pk__in=none_of_these.values("episode")).exclude(out_of_scope),
    )


def unplaced_texts(deployment: Deployment) -> list[str]:
    """The newest tickets the team could not place (both kinds of `unplaced`)."""
    out_of_scope, none_of_these = unplaced(deployment)
    return list(
        (out_of_scope | none_of_these)
        .order_by("-created_at")
        .values_list("task_text", flat=True)[:MAX_TICKETS]
    )


def intent_proposals(deployment: Deployment) -> dict[str, Any]:
    """{out_of_scope, none_of_these: how many tickets of each kind the team could not place, tickets: how
    many of them (the newest `MAX_TICKETS`) were grouped, proposals: [Proposal.as_dict()]}."""
    out_of_scope, none_of_these = unplaced(deployment)
    counts = {"out_of_scope": out_of_scope.count(), "none_of_these": none_of_these.count()}
    texts = unplaced_texts(deployment)
    if not texts:
        return {**counts, "tickets": 0, "proposals": []}
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
    return {**counts, "tickets": len(texts), "proposals": [p.as_dict() for p in proposals]}
