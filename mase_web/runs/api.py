"""REST API of runs: launch, list/filter, detail, cancel, resume, events, checkpoints, compare."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count, Max
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.response import Response

from mase_web.accounts.facade import ProjectActionPermission, can, projects_where, refuse_before_body
from mase_web.api_parsers import INT64_MAX
from mase_web.celery import app as celery_app
from mase_web.runs import comparison, report
from mase_web.runs.models import Run, RunEvent, RunTag
from mase_web.runs.recorder import append_ending
from mase_web.runs.serializers import (
    CheckpointSerializer,
    DeviceSerializer,
    LaunchSerializer,
    RunDetailSerializer,
    RunEventSerializer,
    RunSerializer,
    TagsSerializer,
)
from mase_web.runs.tags import query_tag, set_tags
from mase_web.runs.tasks import dispatch
from mase_web.runs.workers import worker_queues

MAX_EVENTS_PAGE = 5000
MAX_COMPARE = 8

LAUNCH_REFUSED = "only product managers and admins of this project may launch runs"
TAG_REFUSED = "only product managers and admins of this project may tag its runs"


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
        tag = self.request.query_params.get("tag")
        if tag:
            runs = runs.filter(tag_rows__name=query_tag(tag))
        runs = runs.select_related("created_by").prefetch_related("tag_rows")
        return runs.annotate(last_seq=Max("events__seq")).order_by("-created_at")

    def get_serializer_class(self):
        if self.action == "create":
            return LaunchSerializer
        return RunDetailSerializer if self.action == "retrieve" else RunSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("workflow", int, description="only runs launched from this workflow"),
            OpenApiParameter("tag", str, description="only runs carrying this tag"),
        ],
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=LaunchSerializer, responses={201: RunDetailSerializer})
    def create(self, request, *args, **kwargs):
        refuse_before_body(request.user, "launch_run", request.data, LAUNCH_REFUSED)
        launch = LaunchSerializer(data=request.data, context={"request": request})
        launch.is_valid(raise_exception=True)
        data = launch.validated_data
        if not can(request.user, "launch_run", data["project"]):
            raise PermissionDenied(LAUNCH_REFUSED)
        tags = data.pop("tags", [])
        run = Run.objects.create(created_by=request.user, **data)
        set_tags(run, tags)
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
        Run.objects.filter(pk=run.pk).update(  # the old final metrics no longer describe the run
            state=Run.State.QUEUED,
            cancel_requested=False,
            deliveries=0,
            error="",
            finished_at=None,
            metrics={},
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
        (for the designer's overlay of learned edges over designed ones). A run that has reported
        none yet answers an empty report (`seq` null, no agents): not an error, nothing to draw."""
        run = self.get_object()
        latest = RunEvent.objects.filter(run=run, type="attention").order_by("-seq").first()
        if latest is None:
            return Response(
                {"seq": None, "step": None, "mode": None, "agents": [], "matrix": [], "graph": None}
            )
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
        """Several runs side by side: {runs: [{id, name, state, series: {metric: [[episode, value]]}, summary}],
        config_diff: [{path, values}]} (the settings whose values differ between their specs)."""
        raw = request.query_params.get("ids", "")
        try:
            ids = [int(part) for part in raw.split(",") if part.strip()]
        except ValueError:
            raise ValidationError({"ids": ["must be comma-separated run ids"]}) from None
        if not 2 <= len(ids) <= MAX_COMPARE:
            raise ValidationError({"ids": [f"give between 2 and {MAX_COMPARE} run ids"]})
        runs = [get_object_or_404(self.get_queryset(), pk=pk) for pk in ids]
        return Response(comparison.compare(runs))

    @extend_schema(request=TagsSerializer, responses=RunSerializer)
    @action(detail=True, methods=["put"])
    def tags(self, request, pk=None):
        """Replace the run's tags (product managers and admins: runs are theirs; operators only watch them)."""
        run = self.get_object()
        if not can(request.user, "launch_run", run.project_id):
            raise PermissionDenied(TAG_REFUSED)
        body = TagsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        set_tags(run, body.validated_data["tags"])
        return Response(RunSerializer(self.get_queryset().get(pk=run.pk)).data)

    @extend_schema(responses={200: serializers.DictField()})
    @action(detail=False, methods=["get"], url_path="tags", url_name="tag-list")
    def tag_list(self, request):
        """The tags on the runs you can see: {tags: [{name, runs}]}, most used first."""
        rows = (
            RunTag.objects.filter(
                run__in=Run.objects.filter(project__in=projects_where(request.user, "view_run"))
            )
            .values("name")
            .annotate(runs=Count("run"))
            .order_by("-runs", "name")
        )
        return Response({"tags": list(rows)})

    @extend_schema(responses={200: serializers.DictField()})
    @action(detail=False, methods=["get"])
    def workers(self, request):
        """Connected workers and the device queues they consume (asked of Celery, cached ~10 s):
        {queues: {cpu: [worker], gpu: [worker]}, workers: [{name, queues}], checked_at, error}."""
        return Response(worker_queues())

    @extend_schema(responses={(200, "text/html"): str})
    @action(detail=True, methods=["get"])
    def report(self, request, pk=None):
        """The run as a standalone HTML report with its figures (a download that opens offline)."""
        run = self.get_object()
        response = HttpResponse(report.render(run), content_type="text/html; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="mase-run-{run.pk}-report.html"'
        return response

    @extend_schema(request=DeviceSerializer, responses=RunSerializer)
    @action(detail=True, methods=["post"])
    def device(self, request, pk=None):
        """Move a queued run to the other device's queue (e.g. to the CPU when no GPU worker is connected)."""
        run = self.get_object()
        body = DeviceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if run.state != Run.State.QUEUED:
            raise ValidationError(
                {"state": [f"only a queued run can change device (this one is {run.state})"]}
            )
        old_task = run.task_id
        if Run.objects.filter(pk=run.pk, state=Run.State.QUEUED).update(device=body.validated_data["device"]):
            run.refresh_from_db()
            dispatch(run)  # a new delivery on the new queue; the old one is revoked, and refused if it
            if old_task:  # still arrives (the claim is atomic, and a live lease is never taken twice)
                celery_app.control.revoke(old_task)
        return Response(RunSerializer(self.get_queryset().get(pk=run.pk)).data)
