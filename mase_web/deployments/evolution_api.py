"""REST API of a deployment's evolution: its lineage, "Evolve", promotion and rollback (`evolution`).

Everyone who may see the deployment reads the lineage; product managers and admins (who may deploy)
evolve, promote and roll back. A deployment of another project is a 404, as everywhere.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.accounts.facade import can, projects_where
from mase_web.api_schema import ApiErrorSerializer
from mase_web.deployments.evolution import (
    EvolutionRefused,
    empty_slice_refusal,
    evaluation_slice,
    evolve,
    labelled_traffic,
    policy_dict,
    policy_of,
    promote,
    rollback,
)
from mase_web.deployments.evolution_eval import settle, watch
from mase_web.deployments.models import Deployment, Generation
from mase_web.runs.facade import shown_checkpoint_path, shown_text

# every write on a deployment's page that is not an operator's (evolve, promote, shadow, scope gate, reply
# styles, new intents): the words name them all, not only evolving
DEPLOY_REFUSED = (
    "only product managers and admins of this project may change this deployment: evolve, promote or roll "
    "back its team, run one in shadow, and set its scope gate, reply styles and intents"
)


class LineageGenerationSerializer(serializers.ModelSerializer):
    checkpoint = serializers.SerializerMethodField()
    parent = serializers.IntegerField(source="parent.number", allow_null=True, default=None, read_only=True)
    run_state = serializers.CharField(source="run.state", read_only=True)
    created_by = serializers.CharField(
        source="created_by.username", allow_null=True, default=None, read_only=True
    )
    promoted_by = serializers.CharField(
        source="promoted_by.username", allow_null=True, default=None, read_only=True
    )

    class Meta:
        model = Generation
        fields = [
            "number", "status", "phase", "run", "run_state", "checkpoint", "parent", "comparison", "data",
            "reason", "created_by", "created_at", "promoted_by", "promoted_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_checkpoint(self, generation: Generation) -> str:
        """Relative to its run, never the server's path."""
        return (
            shown_checkpoint_path(generation.run_id, generation.checkpoint) if generation.checkpoint else ""
        )


class LineageSerializer(serializers.Serializer):
    generations = LineageGenerationSerializer(many=True)
    policy = serializers.DictField()
    slice_tickets = serializers.IntegerField()
    evolve_refusal = serializers.CharField(
        allow_null=True, help_text="why Evolve is refused now (an empty evaluation slice), or null"
    )
    evolve_after = serializers.DateTimeField(
        allow_null=True,
        help_text="when the minimum interval since the last challenger ends (Evolve is a 429 before), or null",
    )


class PolicySerializer(serializers.Serializer):
    """A deployment's evolution policy; what is left out keeps its value."""

    min_interval_s = serializers.IntegerField(required=False, min_value=60, max_value=365 * 86400)
    after_corrections = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=1_000_000,
        help_text="evolve by itself after this many; 0 = by hand",
    )
    every_s = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=365 * 86400,
        help_text="evolve by itself this often (checked every few minutes); 0 = no schedule",
    )
    auto_promote = serializers.BooleanField(required=False)
    slice_every = serializers.IntegerField(
        required=False,
        min_value=2,
        max_value=100,
        help_text="fixed once traffic is corrected: the slice is frozen",
    )
    correction_weight = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=20,
        help_text="each labelled row stands this many times in a challenger's tickets",
    )
    margin = serializers.FloatField(required=False, min_value=0.0, max_value=0.5)
    intent_tolerance = serializers.FloatField(required=False, min_value=0.0, max_value=0.5)
    min_tickets = serializers.IntegerField(required=False, min_value=10, max_value=1_000_000)
    min_intent_tickets = serializers.IntegerField(required=False, min_value=1, max_value=1_000_000)

    def validate(self, data: dict) -> dict:
        # what is left out keeps its value, so a misspelt or read-only name (evolve_after) would be a 200 that
        # changed nothing: it is named instead
        unknown = sorted(set(self.initial_data) - set(self.fields))
        if unknown:
            known = ", ".join(self.fields)
            raise serializers.ValidationError(
                {name: [f"not a setting of the evolution policy (its settings: {known})"] for name in unknown}
            )
        return data

    def validate_every_s(self, value: int) -> int:
        if 0 < value < 3600:
            raise serializers.ValidationError("a schedule runs at most hourly (3600 s); 0 turns it off")
        return value

    def validate_slice_every(self, value: int) -> int:
        deployment = self.context["deployment"]
        if value != policy_of(deployment).slice_every and labelled_traffic(deployment):
            raise serializers.ValidationError(
                "the evaluation slice is drawn already (corrected tickets exist); changing it would move tickets "
                "between the slice and training"
            )
        return value


def _deployment(user, pk: int, write: bool = False) -> Deployment:
    deployment = Deployment.objects.filter(pk=pk, project__in=projects_where(user, "view_run")).first()
    if deployment is None:
        raise NotFound(f"no deployment {pk} in your projects")
    if write and not can(user, "deploy", deployment.project_id):
        raise PermissionDenied(DEPLOY_REFUSED)
    return deployment


class NotNow(APIException):
    status_code = status.HTTP_400_BAD_REQUEST


class TooSoon(APIException):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS


def _refused(exc: EvolutionRefused) -> APIException:
    """The API's error (its usual shape): 429 within the minimum interval, else 400, the reason as detail."""
    return (TooSoon if exc.too_soon else NotNow)(str(exc))


def evolve_after(deployment: Deployment, policy) -> str | None:
    """When the deployment may evolve again (its last challenger's start plus the minimum interval, as
    ``refuse_if_too_soon`` counts it), or None when it may now."""
    last = deployment.generations.filter(number__gt=1).order_by("-created_at").first()
    if last is None:
        return None
    ready_at = last.created_at + timedelta(seconds=policy.min_interval_s)
    return ready_at.isoformat() if timezone.now() < ready_at else None


def lineage(deployment: Deployment) -> dict:
    settle(deployment)
    rows = deployment.generations.select_related("run", "parent", "created_by", "promoted_by").order_by(
        "number"
    )
    policy = policy_of(deployment)
    slice_tickets = len(evaluation_slice(deployment, policy))
    return {
        "generations": LineageGenerationSerializer(rows, many=True).data,
        "policy": policy_dict(policy),
        "slice_tickets": slice_tickets,
        "evolve_refusal": empty_slice_refusal(slice_tickets, policy),
        "evolve_after": evolve_after(deployment, policy),
    }


class GenerationsView(APIView):
    @extend_schema(responses=LineageSerializer)
    def get(self, request, pk: int):
        """The lineage: every generation with its figures against its parent, its data and who promoted it."""
        deployment = _deployment(request.user, pk)
        from mase_web.deployments.evolution import first_generation

        first_generation(deployment)
        return Response(lineage(deployment))


class EvolveView(APIView):
    @extend_schema(
        request=None,
        responses={
            202: LineageGenerationSerializer,
            429: OpenApiResponse(ApiErrorSerializer, description="within the minimum interval; says when"),
        },
    )
    def post(self, request, pk: int):
        """Launch a challenger run (400 with the reason when not possible — an empty evaluation slice, a
        challenger in flight —, 429 within the minimum interval)."""
        deployment = _deployment(request.user, pk, write=True)
        try:
            generation = evolve(deployment, request.user)
            watch(generation)
        except EvolutionRefused as exc:
            raise _refused(exc) from None
        except (ValueError, LookupError, OSError) as exc:  # e.g. the champion's ticket file cannot be read
            raise ValidationError({"evolve": [shown_text(str(exc))]}) from None
        return Response(LineageGenerationSerializer(generation).data, status=status.HTTP_202_ACCEPTED)


class PromoteView(APIView):
    @extend_schema(request=None, responses={200: LineageSerializer})
    def post(self, request, pk: int, number: int):
        """Serve this generation from the next ticket on (a ticket in flight finishes on its team)."""
        deployment = _deployment(request.user, pk, write=True)
        generation = deployment.generations.filter(number=number).first()
        if generation is None:
            raise NotFound(f"deployment {pk} has no generation {number}")
        try:
            promote(generation, request.user)
        except EvolutionRefused as exc:
            raise _refused(exc) from None
        return Response(lineage(deployment))


class RollbackView(APIView):
    @extend_schema(request=None, responses={200: LineageSerializer})
    def post(self, request, pk: int):
        """Serve again the generation that served before the champion."""
        deployment = _deployment(request.user, pk, write=True)
        try:
            rollback(deployment, request.user)
        except EvolutionRefused as exc:
            raise _refused(exc) from None
        return Response(lineage(deployment))


class PolicyView(APIView):
    @extend_schema(methods=["GET"], responses={200: PolicySerializer})
    @extend_schema(methods=["POST"], request=PolicySerializer, responses={200: PolicySerializer})
    def get(self, request, pk: int):
        """The deployment's evolution policy (every default filled in)."""
        return Response(policy_dict(policy_of(_deployment(request.user, pk))))

    @extend_schema(request=PolicySerializer, responses={200: PolicySerializer})
    def post(self, request, pk: int):
        """Change some of the policy (product managers, admins); a bad value is a 400 on its field."""
        deployment = _deployment(request.user, pk, write=True)
        body = PolicySerializer(data=request.data, context={"deployment": deployment})
        body.is_valid(raise_exception=True)
        deployment.evolution = {**(deployment.evolution or {}), **body.validated_data}
        deployment.save(update_fields=["evolution"])
        return Response(policy_dict(policy_of(deployment)))


class IntentProposalsView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, pk: int):
        """New intents proposed from the tickets the deployment could not place, grouped by meaning:
        ``{out_of_scope, none_of_these, tickets, proposals: [{name, description, tickets, share, examples,
        resembles, resemblance}]}`` (the two kinds of unplaced ticket counted apart: `proposals.unplaced`)."""
        from mase_web.deployments.proposals import intent_proposals

        deployment = _deployment(request.user, pk)
        try:
            return Response(intent_proposals(deployment))
        except (ValueError, OSError) as exc:  # the team cannot be loaded (its spec, its backbone)
            raise ValidationError({"deployment": [shown_text(str(exc))]}) from None
