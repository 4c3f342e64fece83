"""REST API of runs: launch, list/filter, detail, cancel, resume, events, checkpoints, compare."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response

from mase_web.accounts.permissions import ProjectActionPermission, can, projects_where
from mase_web.api_parsers import INT64_MAX
from mase_web.celery import app as celery_app
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.recorder import append_ending
from mase_web.runs.serializers import (
    CheckpointSerializer,
    LaunchSerializer,
    RunDetailSerializer,
    RunEventSerializer,
    RunSerializer,
)
from mase_web.runs.tasks import dispatch

MAX_EVENTS_PAGE = 5000
MAX_COMPARE = 8


def _positive_int(raw: str | None, name: str, default: int) -> int:
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValidationError({name: ["must be a whole number"]}) from None
    if value < 0:
        raise ValidationError({name: ["must be zero or more"]})
    if value > INT64_MAX:  # SQLite raises OverflowError on a larger integer in a query
        raise ValidationError({name: [f"must be at most {INT64_MAX}"]})
    return value


class RunViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """Runs of the projects you belong to. POST launches a run (product managers and admins)."""

    permission_classes = [ProjectActionPermission]
    read_action, write_action = "view_run", "control_run"
    filterset_fields = ["project", "state", "kind", "device"]
    ordering_fields = ["created_at", "finished_at", "name"]

    def get_queryset(self):
        runs = Run.objects.filter(project__in=projects_where(self.request.user, "view_run"))
        workflow = self.request.query_params.get("workflow")
        if workflow:
            runs = runs.filter(source__workflow=_positive_int(workflow, "workflow", 0))
        return runs.select_related("created_by").annotate(last_seq=Max("events__seq")).order_by("-created_at")

    def get_serializer_class(self):
        if self.action == "create":
            return LaunchSerializer
        return RunDetailSerializer if self.action == "retrieve" else RunSerializer

    @extend_schema(
        parameters=[OpenApiParameter("workflow", int, description="only runs launched from this workflow")],
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=LaunchSerializer, responses={201: RunDetailSerializer})
    def create(self, request, *args, **kwargs):
        launch = LaunchSerializer(data=request.data, context={"request": request})
        launch.is_valid(raise_exception=True)
        data = launch.validated_data
        if not can(request.user, "launch_run", data["project"]):
            raise PermissionDenied("only product managers and admins of this project may launch runs")
        run = Run.objects.create(created_by=request.user, **data)
        dispatch(run)
        return Response(
            RunDetailSerializer(self.get_queryset().get(pk=run.pk)).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(request=None, responses=RunSerializer)
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Ask the run to stop: a queued run is cancelled at once, a running one at its next update."""
        run = self.get_object()
        if run.is_terminal:
            raise ValidationError({"state": [f"the run already ended ({run.state})"]})
        with transaction.atomic():
            Run.objects.filter(pk=run.pk).update(cancel_requested=True)
            if Run.objects.filter(pk=run.pk, state=Run.State.QUEUED).update(
                state=Run.State.CANCELLED, finished_at=timezone.now()
            ):  # no trainer will report this end: close the event stream here, so followers stop
                append_ending(run.pk, Run.State.CANCELLED)
        if run.task_id:  # the backstop: a delivery that has not started yet never will
            celery_app.control.revoke(run.task_id)
        return Response(RunSerializer(self.get_queryset().get(pk=run.pk)).data)

    @extend_schema(request=None, responses=RunSerializer)
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        """Continue a failed or cancelled run from its last checkpoint."""
        run = self.get_object()
        if run.state not in (Run.State.FAILED, Run.State.CANCELLED):
            raise ValidationError(
                {"state": [f"only failed or cancelled runs can be resumed (this one is {run.state})"]}
            )
        Run.objects.filter(pk=run.pk).update(
            state=Run.State.QUEUED, cancel_requested=False, deliveries=0, error="", finished_at=None
        )
        run.refresh_from_db()
        dispatch(run)
        return Response(RunSerializer(self.get_queryset().get(pk=run.pk)).data)

    @extend_schema(
        parameters=[
            OpenApiParameter("after", int, description="only events with a larger sequence number"),
            OpenApiParameter("type", str, description="only events of this type"),
            OpenApiParameter("limit", int, description=f"at most this many (≤ {MAX_EVENTS_PAGE})"),
        ],
        responses=RunEventSerializer(many=True),
    )
    @action(detail=True, methods=["get"], pagination_class=None)  # pages by `after` and `limit`
    def events(self, request, pk=None):
        """The run's events in sequence order (the same stream the WebSocket sends)."""
        run = self.get_object()
        after = _positive_int(request.query_params.get("after"), "after", 0)
        limit = min(_positive_int(request.query_params.get("limit"), "limit", 1000), MAX_EVENTS_PAGE)
        rows = RunEvent.objects.filter(run=run, seq__gt=after).order_by("seq")
        if request.query_params.get("type"):
            rows = rows.filter(type=request.query_params["type"])
        return Response(RunEventSerializer(rows[:limit], many=True).data)

    @extend_schema(responses={200: serializers.DictField()})
    @action(detail=True, methods=["get"])
    def communication(self, request, pk=None):
        """The communication the team learned: the newest attention matrix and its graph
        (for the designer's overlay of learned edges over designed ones)."""
        run = self.get_object()
        latest = RunEvent.objects.filter(run=run, type="attention").order_by("-seq").first()
        if latest is None:
            raise NotFound("this run has reported no attention yet")
        p = latest.payload
        return Response(
            {"seq": latest.seq, "step": p.get("step"), "mode": p.get("mode"), "agents": p.get("agents"),
             "matrix": p.get("matrix"), "graph": p.get("graph")}
        )  # fmt: skip

    @extend_schema(responses=CheckpointSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)  # a run's checkpoints are few
    def checkpoints(self, request, pk=None):
        return Response(CheckpointSerializer(self.get_object().checkpoints.all(), many=True).data)

    @extend_schema(
        parameters=[OpenApiParameter("ids", str, description="comma-separated run ids (2 to 8)")],
        responses={200: serializers.DictField()},
    )
    @action(detail=False, methods=["get"])
    def compare(self, request):
        """Metric series of several runs side by side: {runs: [{id, name, state, series: {metric: [[episode, value]]}}]}."""
        raw = request.query_params.get("ids", "")
        try:
            ids = [int(part) for part in raw.split(",") if part.strip()]
        except ValueError:
            raise ValidationError({"ids": ["must be comma-separated run ids"]}) from None
        if not 2 <= len(ids) <= MAX_COMPARE:
            raise ValidationError({"ids": [f"give between 2 and {MAX_COMPARE} run ids"]})
        runs = [get_object_or_404(self.get_queryset(), pk=pk) for pk in ids]
        return Response({"runs": [self._series(run) for run in runs]})

    @staticmethod
    def _series(run: Run) -> dict:
        series: dict[str, list[list[float]]] = {}
        for payload in (
            RunEvent.objects.filter(run=run, type="metrics").order_by("seq").values_list("payload", flat=True)
        ):
            x = payload.get("episode", payload.get("step"))
            if x is None:
                continue
            for key, value in payload.items():
                if (
                    key not in ("episode", "step")
                    and isinstance(value, (int, float))
                    and not isinstance(value, bool)
                ):
                    series.setdefault(key, []).append([x, value])
        return {"id": run.pk, "name": run.name, "state": run.state, "series": series}
