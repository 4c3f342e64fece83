"""An operator's correction of a decision or a ticket: what the right answer was, so that review can teach.

In decision review an operator who sees a ticket handled wrongly says what was right: the intents the ticket
really asked for (any of the deployment's intent catalogue, or of the intents accepted onto its design), the
agent that should own it (a member of the deployed team), or both, and optionally a better reply. A correction

- marks what it corrects wrong (the decision, or the ticket's deciding decisions), with the operator's reason
  or one that says what was corrected;
- is stored as a `Correction` (one per ticket: correcting it again replaces the earlier one); "none of these"
  (no intent of the catalogue fits) is a correction naming no intent and no owner: the ticket lands out of
  scope and joins the tickets the deployment proposes new intents from (`proposals`);
- lands the corrected ticket in the deployment's dataset (`deployment_dataset`, made on first use) as a row
  of a new version with provenance ``corrected``, the reviewer as its author and the decision or episode as
  its source (`mase_web.datasets.facade`). A ticket corrected again is relabelled in place (`relabel_rows`):
  the newer correction replaces the row of the older one and keeps its split, so no ticket is held twice.
"""

from __future__ import annotations

from django.db import transaction
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from mase_web.datasets.facade import RowsRefused, add_rows, deployment_dataset, relabel_rows, version_rows
from mase_web.deployments.accepted_intents import deployment_catalogue
from mase_web.deployments.catalogue import owner_problem
from mase_web.deployments.decision_review import record_review
from mase_web.deployments.episode_review import review_episode
from mase_web.deployments.evolution_eval import maybe_evolve_after_correction
from mase_web.deployments.models import Correction, DecisionStep, Episode

MAX_INTENTS = 64
MAX_REPLY = 20_000
PROVENANCE = "corrected"


class CatalogueIntentSerializer(serializers.Serializer):
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)


class TeamAgentSerializer(serializers.Serializer):
    id = serializers.CharField()
    intents = serializers.ListField(child=serializers.CharField(), help_text="what it owns now")
    reviews = serializers.BooleanField(
        help_text="a reviewer: it approves answers and owns no intents, so it cannot be a ticket's owner"
    )


class CatalogueSerializer(serializers.Serializer):
    """GET /api/deployments/<id>/catalogue/: what a correction may name."""

    intents = CatalogueIntentSerializer(many=True)
    agents = TeamAgentSerializer(many=True)
    example = serializers.CharField(
        allow_null=True,
        help_text="a ticket of the team's own data asking for its first intent (the console's example); "
        "null for a team without one",
    )


class CorrectionRequestSerializer(serializers.Serializer):
    """POST body of /api/decisions/<id>/correct/ and /api/episodes/<id>/correct/: the right intents and/or
    owner (at least one), optionally a better reply and why. Names are checked against the deployment's
    catalogue and team (the serializer's ``deployment`` context)."""

    intents = serializers.ListField(
        child=serializers.CharField(max_length=100),
        required=False,
        max_length=MAX_INTENTS,
        help_text="the intents the ticket really asked for, from the deployment's catalogue",
    )
    owner = serializers.CharField(
        required=False, allow_blank=True, max_length=100, help_text="the agent of the team that should own it"
    )
    reply = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=MAX_REPLY,
        trim_whitespace=True,
        help_text="a better reply",
    )
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000, trim_whitespace=True)
    none_of_these = serializers.BooleanField(
        required=False,
        default=False,
        help_text="the ticket asks for nothing in the catalogue: it lands out of scope, and the deployment's "
        "proposed intents group it with the tickets the team itself found unplaceable",
    )

    def validate_intents(self, intents: list[str]) -> list[str]:
        known = [i["name"] for i in deployment_catalogue(self.context["deployment"])["intents"]]
        unknown = [name for name in intents if name not in known]
        if unknown:
            shown = ", ".join(known) or "none"
            raise serializers.ValidationError(
                f"not in this deployment's intent catalogue: {', '.join(unknown)} (its intents: {shown})"
            )
        if len(set(intents)) < len(intents):
            raise serializers.ValidationError("names an intent twice")
        return intents

    def validate_owner(self, owner: str) -> str:
        problem = owner and owner_problem(self.context["deployment"].spec or {}, owner)
        if problem:
            raise serializers.ValidationError(problem)
        return owner

    def validate(self, data: dict) -> dict:
        if data.get("none_of_these"):
            if data.get("intents") or data.get("owner"):
                raise serializers.ValidationError(
                    {
                        "none_of_these": [
                            "a ticket outside the catalogue has no right intents or owner: clear them"
                        ]
                    }
                )
            return data
        if not data.get("intents") and not data.get("owner"):
            raise serializers.ValidationError(
                {"intents": ["give the right intents, the right owner, or both (or say it is none of these)"]}
            )
        return data


class CorrectionSerializer(serializers.ModelSerializer):
    intents = serializers.ListField(child=serializers.CharField(), read_only=True)
    corrected_by = serializers.CharField(
        source="corrected_by.username", read_only=True, allow_null=True, default=None
    )

    class Meta:
        model = Correction
        fields = [
            "id", "episode", "step", "intents", "owner", "reply", "reason", "corrected_by", "created_at",
            "dataset_row",
        ]  # fmt: skip
        read_only_fields = fields


def _reason(data: dict) -> str:
    """The review's reason: the operator's, else what the correction says was right."""
    if data.get("reason"):
        return data["reason"]
    if data.get("none_of_these"):
        return "corrected: none of the catalogue's intents"
    said = []
    if data.get("intents"):
        said.append(f"intents {', '.join(data['intents'])}")
    if data.get("owner"):
        said.append(f"owner {data['owner']}")
    return "corrected: " + "; ".join(said)


def is_none_of_these(correction: Correction) -> bool:
    """No intent of the catalogue fits: a correction naming neither intents nor an owner."""
    return not correction.intents and not correction.owner


def source_ref(episode: Episode, step: DecisionStep | None) -> str:
    """Where a corrected row came from, in words a reader and a filter can use."""
    base = f"deployment/{episode.deployment_id}/episode/{episode.pk}"
    return f"{base}/decision/{step.pk}" if step is not None else base


@transaction.atomic
def correct(episode: Episode, step: DecisionStep | None, user, data: dict) -> Correction:
    """Stores a validated `CorrectionRequestSerializer` body (see the module docstring); returns the correction."""
    review = {"status": DecisionStep.Review.WRONG, "reason": _reason(data)}
    if step is not None:
        record_review(step, user, review)
    else:
        review_episode(episode, user, review)
    fields = {
        "step": step,
        "intents": list(data.get("intents") or []),
        "owner": data.get("owner") or "",
        "reply": data.get("reply") or "",
        "reason": data.get("reason") or "",
        "corrected_by": user,
    }
    earlier = episode.corrections.order_by("-pk").first()
    replaces = (earlier.dataset_row or {}).get("row") if earlier is not None else None
    correction = Correction.objects.create(episode=episode, **fields)
    episode.corrections.exclude(pk=correction.pk).delete()  # the newest correction of a ticket stands
    correction.dataset_row = land_in_dataset(correction, replaces=replaces)
    correction.save(update_fields=["dataset_row"])
    deployment = episode.deployment  # its "evolve after N corrections" trigger, once this one is stored
    transaction.on_commit(lambda: maybe_evolve_after_correction(deployment))
    return correction


def land_in_dataset(correction: Correction, replaces: int | None = None) -> dict:
    """The corrected ticket as a new row of the deployment's dataset (made on first use), or as the new
    labels of the row an earlier correction of it landed (``replaces``); returns where it landed: {dataset,
    dataset_name, version, version_number, row}. A row the dataset refuses (a text it cannot store) is a
    400 and nothing of the correction is kept."""
    episode, user = correction.episode, correction.corrected_by
    deployment = episode.deployment
    catalogue = {"intents": deployment_catalogue(deployment)["intents"]}  # its rows name these
    dataset = deployment_dataset(deployment.pk, deployment.project_id, by=user, catalogue=catalogue)
    row = {
        "text": episode.task_text,
        "intents": correction.intents,
        "owner": correction.owner,
        "reference_reply": correction.reply,
        "metadata": {"deployment": deployment.pk, "episode": episode.pk, "decision": correction.step_id},
    }
    if is_none_of_these(correction):  # as an annotator's "none of these" lands: out of scope, not unlabelled
        row["metadata"]["out_of_scope"] = True
    ref = source_ref(episode, correction.step)
    try:
        if replaces is not None:
            relabel = {key: value for key, value in row.items() if key != "text"}
            version = relabel_rows(
                dataset, [{**relabel, "row": replaces}], PROVENANCE, by=user, source_ref=ref
            )
        else:
            version = add_rows(dataset, [row], PROVENANCE, by=user, source_ref=ref)
    except RowsRefused as refused:
        raise ValidationError({"dataset": [f"the dataset refused the ticket: {refused}"]}) from None
    stored = version_rows(version).filter(source_ref=ref).order_by("-index").first()
    return {
        "dataset": dataset.pk,
        "dataset_name": dataset.name,
        "version": version.pk,
        "version_number": version.number,
        "row": stored.pk,
    }
