"""Before deploying: how often a run's checkpoint would fall back on the dev split at a chosen threshold.

``GET /api/deployments/preview/?run=ID&threshold=0.6[&checkpoint=ID]`` (anyone who may see the run)
replays the checkpoint's dev-split confidences (stored with it by training's calibration; computed once
for an older checkpoint) through the run's circuit breaker with the threshold replaced
(`serving.preview`). The deploy form calls it as its threshold slider moves.
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.accounts.facade import projects_where
from mase_web.deployments.candidates import spec_problem
from mase_web.runs.facade import Run, shown_checkpoint_path, shown_text


class PreviewQuery(serializers.Serializer):
    run = serializers.IntegerField(min_value=1)
    threshold = serializers.FloatField(min_value=0.0, max_value=1.0, required=False)
    checkpoint = serializers.IntegerField(min_value=1, required=False)


class FallbackPreviewView(APIView):
    """How often the run's checkpoint would hand decisions to the fallback on the dev split."""

    @extend_schema(
        parameters=[
            OpenApiParameter("run", int, required=True, description="a trained run you may see"),
            OpenApiParameter(
                "threshold", float, description="confidence threshold 0..1 (default: the spec's)"
            ),
            OpenApiParameter(
                "checkpoint", int, description="one of the run's checkpoints (default: its best)"
            ),
        ],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        """``{run, checkpoint, split, confidence_threshold, spec_threshold, consecutive_low, tickets,
        decisions, fallback_tickets, fallback_ticket_share, model_decision_share, low_decision_share,
        calibration_error, calibration_error_before}``."""
        from agents.spec import load_spec
        from mase_web.deployments import runtimes
        from mase_web.deployments.api import _checkpoint_of
        from serving.preview import PreviewUnavailable, preview

        query = PreviewQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        run = Run.objects.filter(pk=data["run"], project__in=projects_where(request.user, "view_run")).first()
        if run is None:  # a foreign id answers exactly like a missing one: a bad query field
            raise ValidationError({"run": [f"no run {data['run']} among those you may see"]})
        problem = spec_problem(run)
        if problem:
            raise ValidationError({"run": [problem]})
        checkpoint = _checkpoint_of(run, data.get("checkpoint"))
        team = load_spec(run.spec, require_environment=True)
        try:
            found = preview(
                team, checkpoint, data.get("threshold"), backbone=lambda: runtimes.backbone_for(team)
            )
        except (PreviewUnavailable, ValueError) as exc:
            raise ValidationError({"run": [shown_text(str(exc))]}) from None
        return Response({"run": run.pk, "checkpoint": shown_checkpoint_path(run.pk, checkpoint), **found})
