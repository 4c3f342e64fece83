"""REST API of deployments: deploy, run tickets (one now, or a batch file on a worker), the circuit
breaker (state, operator force, history, alerts), and the operator review of episodes and decisions."""

from __future__ import annotations

import json
from pathlib import Path

from django.db import transaction
from django.http import Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.generics import get_object_or_404
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from mase_web.accounts.facade import can, projects_where, role_allows, role_column
from mase_web.api_parsers import CheckedFormParser, CheckedMultiPartParser, LimitedJSONParser
from mase_web.deployments import breaker_state, breaker_store, conversations, runtimes, writing
from mase_web.deployments.accepted_intents import catalogue_with_example
from mase_web.deployments.candidates import candidates, spec_problem
from mase_web.deployments.corrections import (
    CatalogueSerializer,
    CorrectionRequestSerializer,
    CorrectionSerializer,
    correct,
)
from mase_web.deployments.decision_review import (
    AnnotateSerializer,
    ReviewSerializer,
    queue_for_annotation,
    record_review,
)
from mase_web.deployments.episode_review import (
    EpisodeFilters,
    filter_review_episodes,
    review_episode,
    with_review_fields,
)
from mase_web.deployments.inference import TicketRequest, answer_ticket
from mase_web.deployments.models import BatchJob, DecisionStep, Deployment, Episode
from mase_web.deployments.review import (
    BACKEND_HELP,
    FAULT_CHOICES,
    FAULT_HELP,
    DecisionFilters,
    export_record,
    filter_decisions,
    filter_episodes,
)
from mase_web.deployments.serializers import (
    AlertSerializer,
    BatchJobSerializer,
    DecisionStepSerializer,
    DeployCandidateSerializer,
    DeploymentDetailSerializer,
    DeploymentSerializer,
    DeploySerializer,
    EpisodeDetailSerializer,
    EpisodeReviewRowSerializer,
    EpisodeSerializer,
    ForceSerializer,
    GenerationSerializer,
    TicketSerializer,
    TransitionSerializer,
)
from mase_web.deployments.tasks import dispatch_batch
from mase_web.deployments.ticket_file import catalogue_names, parse_ticket_lines
from mase_web.runs.facade import Run, shown_text
from mase_web.workflows.facade import workflow_in_project
from serving.generation.base import BACKENDS
from serving.model import RuntimeInputError, resolve_checkpoint

MAX_UPLOAD_BYTES = 2 * 1024 * 1024
# A batch's tickets: an uploaded JSONL file, or the same text in a `jsonl` field (JSON or form).
_JSONL_TEXT = {"type": "string", "description": "the JSONL text of the tickets, one per line"}
BATCH_REQUEST = {
    "application/json": {"type": "object", "properties": {"jsonl": _JSONL_TEXT}, "required": ["jsonl"]},
    "multipart/form-data": {
        "type": "object",
        "properties": {"file": {"type": "string", "format": "binary"}, "jsonl": _JSONL_TEXT},
    },
}


class Pages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


def _require(user, action_name: str, project_id: int, what: str) -> None:
    if not can(user, action_name, project_id):
        raise PermissionDenied(what)


def _may_run_tickets(user, project_id: int) -> bool:
    """Those who deploy (product managers) and those who operate (operators) may send tickets."""
    return can(user, "deploy", project_id) or can(user, "control_breaker", project_id)


def _refuse_if_stopped(deployment: Deployment) -> None:
    """A stopped deployment serves nothing until it is resumed."""
    if deployment.status == Deployment.Status.STOPPED:
        message = f"deployment {deployment.pk} is stopped; resume it before sending tickets or batches"
        raise ValidationError({"status": [message]})


def _checkpoint_of(run: Run, checkpoint_id: int | None) -> str:
    """The checkpoint directory to serve: the one named, else the run's best (or last) one."""
    if checkpoint_id is not None:
        row = run.checkpoints.filter(pk=checkpoint_id).first()
        if row is None or not (Path(row.path) / "state.json").is_file():
            raise ValidationError({"checkpoint": [f"run {run.pk} has no checkpoint {checkpoint_id} on disk"]})
        return row.path
    try:
        return str(resolve_checkpoint(run.out_dir))
    except RuntimeInputError:
        pass
    for row in run.checkpoints.order_by("-step", "-id"):
        if (Path(row.path) / "state.json").is_file():
            return row.path
    raise ValidationError(
        {"run": [f"run {run.pk} has no checkpoint to deploy; train it until it writes one"]}
    )


def _generation_fields(data: dict, keep: Deployment | None = None) -> dict:
    """Model fields from a `GenerationSerializer`'s data: the settings, and the key encrypted (an absent
    key keeps ``keep``'s stored one; an empty one removes it)."""
    fields = {}
    if "settings" in data or keep is None:
        fields["generation"] = data.get("settings") or {}
    if "api_key" in data:
        fields["generation_secret"] = writing.encrypt_secret(data["api_key"])
    return fields


def _with_threshold(spec: dict, threshold: float | None) -> dict:
    """The run's spec, with the breaker's confidence threshold the deploy form chose (when it chose one)."""
    if threshold is None:
        return spec
    return {
        **spec,
        "circuit_breaker": {**(spec.get("circuit_breaker") or {}), "confidence_threshold": threshold},
    }


def _refuse_role_before_body(user, data) -> None:
    """403 before any word about the body for a member of the named run's project who may not deploy; a
    run outside the caller's projects is left to `_deployable_run` (the same answer as a missing one)."""
    try:
        run_id = int(data.get("run"))
    except (AttributeError, TypeError, ValueError):
        return
    project_id = (
        Run.objects.filter(pk=run_id, project__in=projects_where(user, "view_project"))
        .values_list("project_id", flat=True)
        .first()
    )
    if project_id is not None:
        _require(user, "deploy", project_id, "only product managers and admins of this project may deploy")


def _deployable_run(user, run_id: int) -> Run:
    run = Run.objects.filter(pk=run_id, project__in=projects_where(user, "view_project")).first()
    if run is None:
        raise ValidationError({"run": [f"no run {run_id} in your projects"]})
    _require(user, "deploy", run.project_id, "only product managers and admins of this project may deploy")
    if run.state != Run.State.SUCCEEDED:
        raise ValidationError(
            {"run": [f"only a succeeded run can be deployed (run {run.pk} is {run.state})"]}
        )
    problem = spec_problem(run)
    if problem:
        raise ValidationError({"run": [problem]})
    return run


def _upload_text(request) -> str:
    """The JSONL of a batch: an uploaded ``file`` or a ``jsonl`` text field."""
    upload = request.FILES.get("file")
    if upload is not None:
        if upload.size > MAX_UPLOAD_BYTES:
            raise ValidationError({"file": [f"the file is larger than {MAX_UPLOAD_BYTES // 1024} KiB"]})
        raw = upload.read()
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ValidationError({"file": ["the file is not UTF-8 text"]}) from None
    text = request.data.get("jsonl")
    if not isinstance(text, str):
        raise ValidationError({"file": ["upload a JSONL file (field 'file') or send its text as 'jsonl'"]})
    return text


class DeploymentViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """Deployed teams of your projects. POST deploys a succeeded run's checkpoint (product managers, admins)."""

    filterset_fields = ["project", "run", "status"]
    parser_classes = [LimitedJSONParser, CheckedMultiPartParser, CheckedFormParser]

    def get_queryset(self):
        return (
            Deployment.objects.filter(project__in=projects_where(self.request.user, "view_run"))
            .select_related("run", "project", "created_by")
            .order_by("-created_at")
        )

    def get_serializer_class(self):
        return DeploymentDetailSerializer if self.action == "retrieve" else DeploymentSerializer

    @extend_schema(request=DeploySerializer, responses={201: DeploymentDetailSerializer})
    def create(self, request, *args, **kwargs):
        _refuse_role_before_body(request.user, request.data)
        body = DeploySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        run = _deployable_run(request.user, data["run"])
        checkpoint = _checkpoint_of(run, data.get("checkpoint"))
        gate = {"scope_gate": data["scope_gate"]} if "scope_gate" in data else {}  # else the site's default
        workflow_id = run.source.get("workflow") if run.source.get("kind") == "workflow" else None
        deployment = Deployment.objects.create(
            project_id=run.project_id,
            name=data.get("name") or run.name,
            workflow=workflow_in_project(run.project_id, workflow_id),
            run=run,
            checkpoint=checkpoint,
            spec=_with_threshold(run.spec, data.get("confidence_threshold")),
            created_by=request.user,
            **_generation_fields(data.get("generation") or {}),
            **gate,
        )
        # with its scope gate on, the gate is built now rather than by the first ticket
        transaction.on_commit(lambda: runtimes.warm_soon(deployment))
        return Response(DeploymentDetailSerializer(deployment).data, status=status.HTTP_201_CREATED)

    @extend_schema(methods=["GET"], responses={200: OpenApiTypes.OBJECT})
    @extend_schema(
        methods=["POST"], request=GenerationSerializer, responses={200: DeploymentDetailSerializer}
    )
    @action(detail=True, methods=["get", "post"])
    def generation(self, request, pk=None):
        """GET the reply writer's settings; POST ``{"settings": {...}, "api_key"?}`` changes the backend
        (product managers, admins). An empty ``api_key`` removes the stored one; none keeps it."""
        deployment = self.get_object()
        if request.method == "GET":
            return Response(DeploymentSerializer(deployment).data["generation"])
        _require(
            request.user, "deploy", deployment.project_id, "only product managers and admins may change it"
        )
        body = GenerationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fields = _generation_fields(body.validated_data, keep=deployment)
        for name, value in fields.items():
            setattr(deployment, name, value)
        deployment.save(update_fields=list(fields))
        writing.forget(deployment.pk)
        return Response(DeploymentDetailSerializer(deployment).data)

    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"], url_path="generation/test")
    def test_generation(self, request, pk=None):
        """One call to the writer's backend (past its breaker): ``{"ok", "text" | "error", "latency_ms"}``."""
        deployment = self.get_object()
        if not _may_run_tickets(request.user, deployment.project_id):
            raise PermissionDenied("only product managers, operators and admins may try the writer")
        return Response(writing.try_backend(deployment))

    @extend_schema(responses=DeployCandidateSerializer(many=True))
    @action(detail=False, methods=["get"], pagination_class=None)
    def candidates(self, request):
        """Succeeded training runs of the projects where you may deploy: [{id, name, project, deployable,
        why}], `why` saying in words what keeps a run from being deployed."""
        return Response(candidates(Run.objects.filter(project__in=projects_where(request.user, "deploy"))))

    def _ticket_target(self, request, pk) -> Deployment:
        """`get_object` for a ticket in one query, the caller's role read with the row (a ticket's checks
        ask no more queries), without what a ticket never reads: the list filters, the run, project and
        creator rows, and the spec (loaded only if this process must build the team). The same 404 for a
        deployment the user may not see."""
        user = request.user
        rows = Deployment.objects.defer("spec").annotate(caller_role=role_column(user))
        deployment = get_object_or_404(rows, pk=pk)
        if not role_allows(user, "view_run", deployment.caller_role):
            raise Http404(f"No {Deployment._meta.object_name} matches the given query.")
        self.check_object_permissions(request, deployment)
        return deployment

    @extend_schema(request=TicketSerializer, responses={201: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def tickets(self, request, pk=None):
        """Run one ticket now; returns the stored episode and the full result with its decision log.
        Every decision is also streamed to ws/deployments/<id>/ as it is made."""
        deployment = self._ticket_target(request, pk)
        user, role = request.user, deployment.caller_role
        if not (role_allows(user, "deploy", role) or role_allows(user, "control_breaker", role)):
            raise PermissionDenied("only product managers, operators and admins may send tickets")
        _refuse_if_stopped(deployment)
        if refusal := conversations.ticket_refusal(deployment):
            raise ValidationError({"text": [refusal]})
        body = TicketSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            answer = answer_ticket(deployment, TicketRequest(data["text"]), data["source"], request.user)
        except ValueError as exc:  # the team cannot be loaded (a checkpoint removed or corrupted)
            raise ValidationError({"checkpoint": [shown_text(str(exc))]}) from None
        return Response(
            {"episode": answer.episode_data, "result": answer.result}, status=status.HTTP_201_CREATED
        )

    @extend_schema(methods=["GET"], responses=BatchJobSerializer(many=True))
    @extend_schema(methods=["POST"], request=BATCH_REQUEST, responses={202: BatchJobSerializer})
    @action(detail=True, methods=["get", "post"], pagination_class=None)  # GET: the newest 100, not paged
    def batches(self, request, pk=None):
        """POST a JSONL file of tickets (``{"id", "text", "intents"?}`` per line) to run on a worker; GET lists
        the deployment's batches with their progress."""
        deployment = self.get_object()
        if request.method == "GET":
            return Response(BatchJobSerializer(deployment.batches.all()[:100], many=True).data)
        if not _may_run_tickets(request.user, deployment.project_id):
            raise PermissionDenied("only product managers, operators and admins may run batches")
        _refuse_if_stopped(deployment)
        if refusal := conversations.ticket_refusal(deployment):
            raise ValidationError({"file": [refusal]})
        tickets, errors = parse_ticket_lines(_upload_text(request), catalogue_names(deployment.spec))
        if errors:
            raise ValidationError({"file": errors})
        batch = BatchJob.objects.create(
            deployment=deployment, tickets=tickets, total=len(tickets), created_by=request.user
        )
        dispatch_batch(batch)
        return Response(BatchJobSerializer(batch).data, status=status.HTTP_202_ACCEPTED)

    def _set_status(self, request, new_status: str) -> Response:
        deployment = self.get_object()
        who = "only product managers and admins may stop or resume it"
        _require(request.user, "deploy", deployment.project_id, who)
        deployment.status = new_status
        deployment.save(update_fields=["status"])
        if new_status == Deployment.Status.STOPPED:
            runtimes.forget(deployment.pk)  # a running batch frees the worker's copy when it sees the stop
            writing.forget(deployment.pk)
        return Response(DeploymentDetailSerializer(deployment).data)

    @extend_schema(request=None, responses={200: DeploymentDetailSerializer})
    @action(detail=True, methods=["post"])
    def stop(self, request, pk=None):
        """Stop serving: tickets and batches are refused and this process frees the team's runtime."""
        return self._set_status(request, Deployment.Status.STOPPED)

    @extend_schema(request=None, responses={200: DeploymentDetailSerializer})
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        """Serve again; the runtime is rebuilt on the next ticket."""
        return self._set_status(request, Deployment.Status.ACTIVE)

    @extend_schema(methods=["GET"], responses={200: OpenApiTypes.OBJECT})
    @extend_schema(methods=["POST"], request=ForceSerializer, responses={200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["get", "post"])
    def breaker(self, request, pk=None):
        """GET the breaker's state; POST ``{"state": "open"|"closed", "reason"}`` forces it (operators)."""
        deployment = self.get_object()
        if request.method == "GET":
            return Response(breaker_state.snapshot(deployment))
        _require(
            request.user, "control_breaker", deployment.project_id, "only operators and admins may force it"
        )
        body = ForceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        transition = breaker_store.force(deployment.pk, request.user, data["reason"], data["state"] == "open")
        deployment.refresh_from_db()
        return Response(
            {
                "transition": TransitionSerializer(transition).data,
                "breaker": breaker_state.snapshot(deployment),
            }
        )

    @extend_schema(responses=TransitionSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)  # the newest 200, not paged
    def transitions(self, request, pk=None):
        """The breaker's transitions, newest first (who and why for operator forces)."""
        rows = self.get_object().transitions.select_related("actor")[:200]
        return Response(TransitionSerializer(rows, many=True).data)

    @extend_schema(responses=AlertSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)  # the newest 200, not paged
    def alerts(self, request, pk=None):
        return Response(AlertSerializer(self.get_object().alerts.all()[:200], many=True).data)

    @extend_schema(responses=CatalogueSerializer)
    @action(detail=True, methods=["get"])
    def catalogue(self, request, pk=None):
        """What a correction may name ({intents, agents: [{id, intents, reviews}]}) and the console's example."""
        return Response(catalogue_with_example(self.get_object()))


def _correction_target(user, rows, pk, project_path: str, what: str):
    """Row ``pk`` of ``rows`` among the caller's projects (404 outside them, like a missing one), which the
    caller must review to correct (403 for the project's other members); ``project_path`` leads to its project."""
    row = rows.filter(pk=pk, **{f"{project_path}__in": projects_where(user, "view_project")}).first()
    if row is None:
        raise NotFound(f"no {what} {pk} in your projects")
    project_id = row.deployment.project_id if isinstance(row, Episode) else row.episode.deployment.project_id
    _require(user, "review_logs", project_id, f"only operators and admins of this project correct a {what}")
    return row


def _corrected(request, episode, step) -> Response:
    body = CorrectionRequestSerializer(data=request.data, context={"deployment": episode.deployment})
    body.is_valid(raise_exception=True)
    correction = correct(episode, step, request.user, body.validated_data)
    return Response(CorrectionSerializer(correction).data, status=status.HTTP_201_CREATED)


def _reviewable_deployments(user):
    return Deployment.objects.filter(project__in=projects_where(user, "review_logs"))


REPLY_PARAMETERS = [
    OpenApiParameter("backend", str, enum=list(BACKENDS), description=BACKEND_HELP),
    OpenApiParameter("fault", str, enum=list(FAULT_CHOICES), description=FAULT_HELP),
]


EPISODE_PARAMETERS = [
    OpenApiParameter(name, int, description=text)
    for name, text in [
        ("deployment", "deployment id"),
        ("run", "the trained run served by the deployment"),
        ("batch", "batch id"),
    ]
] + [
    OpenApiParameter(name, str, description=text)
    for name, text in [
        ("agent", "an agent that decided (took a non-idle action)"),
        ("decision_source", "model | trial | fallback: some decision of the episode came from it"),
        ("review_status", "unreviewed | ok | wrong | escalated: the episode's review"),
        ("confidence_min", "0..1, the episode's confidence (its least sure deciding decision)"),
        ("confidence_max", "0..1"),
        ("since", "ISO time"),
        ("until", "ISO time"),
        ("q", "words of the ticket or reply, or a full-text match of a decision"),
    ]
]


class EpisodeViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Episodes (tickets run) of deployments you may review; the detail is the trajectory with every step."""

    pagination_class = Pages
    filterset_fields = ["source", "status", "breaker_state"]  # deployment, batch: EpisodeFilters

    def get_queryset(self):
        reviewable = _reviewable_deployments(self.request.user)
        episodes = Episode.objects.filter(deployment__in=reviewable)
        if self.action == "list":  # validated here: a bad filter is a 400 naming it
            f = EpisodeFilters(data=self.request.query_params, deployments=reviewable)
            f.is_valid(raise_exception=True)
            episodes = filter_episodes(episodes, f.validated_data)
            episodes = filter_review_episodes(with_review_fields(episodes), f.validated_data)
        return episodes.select_related("deployment", "created_by").order_by("-created_at", "-id")

    def get_serializer_class(self):
        if self.action == "list":
            return EpisodeReviewRowSerializer
        return EpisodeDetailSerializer if self.action == "retrieve" else EpisodeSerializer

    @extend_schema(parameters=REPLY_PARAMETERS + EPISODE_PARAMETERS)
    def list(self, request, *args, **kwargs):
        """One row per ticket: its text, the reply, who decided and how sure, its review; steps: the detail."""
        return super().list(request, *args, **kwargs)

    @extend_schema(request=ReviewSerializer, responses=EpisodeReviewRowSerializer)
    @action(detail=True, methods=["post"])
    def review(self, request, pk=None):
        """Mark the ticket's handling ok, wrong (with a reason), escalated or unreviewed: stored on its deciding
        decisions (operators, admins)."""
        episode = self.get_object()
        body = ReviewSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        review_episode(episode, request.user, body.validated_data)
        row = with_review_fields(Episode.objects.filter(pk=episode.pk)).select_related("deployment").get()
        return Response(EpisodeReviewRowSerializer(row).data)

    @extend_schema(request=CorrectionRequestSerializer, responses={201: CorrectionSerializer})
    @action(detail=True, methods=["post"])
    def correct(self, request, pk=None):
        """Say what was right for the ticket: its intents and/or owner, optionally a better reply. Marks its
        deciding decisions wrong and lands the ticket in the deployment's dataset (operators, admins)."""
        rows = Episode.objects.select_related("deployment")
        episode = _correction_target(request.user, rows, pk, "deployment__project", "ticket")
        return _corrected(request, episode, None)


DECISION_PARAMETERS = [
    OpenApiParameter(name, str, description=text)
    for name, text in [
        ("deployment", "deployment id"),
        ("run", "the trained run served by the deployment"),
        ("episode", "episode id"),
        ("agent", "agent id"),
        ("source", "model | trial | fallback"),
        ("breaker_state", "closed | open | half_open"),
        ("review_status", "unreviewed | ok | wrong | escalated"),
        ("confidence_min", "0..1"),
        ("confidence_max", "0..1"),
        ("since", "ISO time"),
        ("until", "ISO time"),
        ("q", "full-text search over observation, action and reason"),
    ]
] + REPLY_PARAMETERS


class DecisionViewSet(mixins.ListModelMixin, viewsets.GenericViewSet):
    """Decision logs (one agent's decision per row) of deployments you may review, newest first."""

    serializer_class = DecisionStepSerializer
    pagination_class = Pages
    filter_backends: list = []  # filters are validated by DecisionFilters (a bad one is a 400)

    def get_queryset(self):
        reviewable = _reviewable_deployments(self.request.user)
        f = DecisionFilters(data=self.request.query_params, deployments=reviewable)
        f.is_valid(raise_exception=True)
        steps = DecisionStep.objects.filter(episode__deployment__in=reviewable)
        return (
            filter_decisions(steps, f.validated_data)
            .select_related("reviewed_by")
            .order_by("-created_at", "-id")
        )

    @extend_schema(parameters=DECISION_PARAMETERS)
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    def _reviewed_step(self, pk) -> DecisionStep:
        step = (
            DecisionStep.objects.filter(episode__deployment__in=_reviewable_deployments(self.request.user))
            .select_related("episode__deployment")
            .filter(pk=pk)
            .first()
        )
        if step is None:
            raise NotFound(f"no decision {pk} among those you may review")
        return step

    @extend_schema(request=ReviewSerializer, responses=DecisionStepSerializer)
    @action(detail=True, methods=["post"])
    def review(self, request, pk=None):
        """Mark the decision ok, wrong (with a reason), escalated, or unreviewed again (operators, admins)."""
        step = self._reviewed_step(pk)
        body = ReviewSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(DecisionStepSerializer(record_review(step, request.user, body.validated_data)).data)

    @extend_schema(request=CorrectionRequestSerializer, responses={201: CorrectionSerializer})
    @action(detail=True, methods=["post"])
    def correct(self, request, pk=None):
        """Say what the decision should have been: the ticket's intents and/or owner, optionally a better
        reply. Marks it wrong and lands the ticket in the deployment's dataset (operators, admins)."""
        rows = DecisionStep.objects.select_related("episode__deployment")
        step = _correction_target(request.user, rows, pk, "episode__deployment__project", "decision")
        return _corrected(request, step.episode, step)

    @extend_schema(request=AnnotateSerializer, responses={201: OpenApiTypes.OBJECT, 200: OpenApiTypes.OBJECT})
    @action(detail=True, methods=["post"])
    def annotate(self, request, pk=None):
        """Queue a decision marked wrong for annotation: {queue, queue_name, item, added}."""
        step = self._reviewed_step(pk)
        body = AnnotateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        placed = queue_for_annotation(step, request.user, body.validated_data.get("queue"))
        return Response(placed, status=status.HTTP_201_CREATED if placed["added"] else status.HTTP_200_OK)

    @extend_schema(parameters=DECISION_PARAMETERS, responses={(200, "application/x-ndjson"): str})
    @action(detail=False, methods=["get"])
    def export(self, request):
        """The filtered decisions as JSONL (one decision-log record per line, oldest first), streamed."""
        steps = (
            self.get_queryset()
            .select_related("episode__deployment", "reviewed_by")
            .order_by("created_at", "id")
        )
        lines = (
            json.dumps(export_record(s), ensure_ascii=False) + "\n" for s in steps.iterator(chunk_size=500)
        )
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson")
        response["Content-Disposition"] = 'attachment; filename="decisions.jsonl"'
        return response
