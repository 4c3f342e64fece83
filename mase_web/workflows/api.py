"""REST API of the workflow designer: drafts, validation, publishing, versions, diff, import/export,
and the template gallery. Who may do what comes from `mase_web.accounts.permissions`:
`view_workflow` to read (and to validate or diff, which change nothing), `edit_workflow` to write.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import transaction
from django.db.models import Max
from django.http import JsonResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.filters import OrderingFilter, SearchFilter
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.advisor import advise
from agents.envs import REGISTRY, EnvironmentUnavailableError, env_parameters
from agents.roles import REWARD_TERMS, ROLES
from agents.spec import (
    LIMITS,
    PHASES,
    REWARD_PRESETS,
    AgentSpec,
    TeamSpec,
    intent_catalogues,
    prompt_routing,
    spec_warnings,
    validate_spec,
)
from agents.spec.algorithms import algorithm_catalog
from agents.spec.prompts import filled_prompts
from agents.spec.schema import spec_schema
from mase_web.accounts.facade import ProjectActionPermission, can, projects_where, refuse_before_body
from mase_web.api_filters import ScopedFilterBackend
from mase_web.api_parsers import LimitedJSONParser
from mase_web.workflows import documents
from mase_web.workflows.models import Workflow, WorkflowVersion
from mase_web.workflows.serializers import (
    DiffSerializer,
    ImportSerializer,
    PublishSerializer,
    TemplateSerializer,
    TemplateSummarySerializer,
    ValidateRequestSerializer,
    ValidationResultSerializer,
    WorkflowListSerializer,
    WorkflowSerializer,
    WorkflowVersionListSerializer,
    WorkflowVersionSerializer,
)

# Actions that change nothing, though they are POSTs or read other objects.
READ_ONLY_ACTIONS = {"validate"}


def _problems(errors) -> list[dict[str, str]]:
    return [{"path": e.path, "message": e.message} for e in errors]


def spec_report(spec) -> dict:
    """The validator's and the advisor's verdict on one document (what the designer shows live)."""
    errors = validate_spec(spec, confined=True)
    advice = None
    if not errors:
        try:
            advice = advise(spec).to_dict()
        except ValueError:  # the advisor validates again; a valid spec does not get here
            advice = None
    return {
        "valid": not errors,
        "errors": _problems(errors),
        "warnings": _problems(spec_warnings(spec)),
        "advice": advice,
        "prompts": filled_prompts(spec),  # the prompt each agent that names none is given (shown in its box)
    }


def _invalid_spec_response(errors, what: str) -> Response:
    grouped: dict[str, list[str]] = {}
    for e in errors:
        grouped.setdefault(e.path, []).append(e.message)
    n = len(errors)
    return Response(
        {"detail": f"The spec has {n} error{'s' if n != 1 else ''}; {what}.", "errors": grouped},
        status=status.HTTP_400_BAD_REQUEST,
    )


def _require(user, action_name: str, project) -> None:
    if not can(user, "view_project", project):
        raise ValidationError({"project": ["no such project among yours"]})
    if not can(user, action_name, project):
        raise PermissionDenied(f"your role in project {project.name!r} does not allow this ({action_name})")


class WorkflowViewSet(viewsets.ModelViewSet):
    """Workflows of the projects you belong to: their drafts (autosaved), versions and history."""

    permission_classes = [IsAuthenticated, ProjectActionPermission]
    parser_classes = [LimitedJSONParser]
    read_action = "view_workflow"
    filter_backends = [ScopedFilterBackend, SearchFilter, OrderingFilter]
    filterset_fields = ["project"]
    search_fields = ["name", "description"]
    ordering_fields = ["name", "updated_at", "created_at"]

    @property
    def write_action(self) -> str:
        return "view_workflow" if self.action in READ_ONLY_ACTIONS else "edit_workflow"

    def get_queryset(self):
        visible = projects_where(self.request.user, "view_workflow")
        return (
            Workflow.objects.filter(project__in=visible)
            .select_related("project", "created_by", "updated_by")
            .annotate(latest_number=Max("versions__number"))
            .order_by("-updated_at", "-pk")
        )

    def handle_exception(self, exc):
        # Django refuses an oversized body when something reads it whole before our parser streams it.
        if isinstance(exc, RequestDataTooBig):
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            exc = ValidationError(
                {"body": [f"request body is larger than {limit:,} bytes; send a smaller document"]}
            )
        return super().handle_exception(exc)

    def get_serializer_class(self):
        return WorkflowListSerializer if self.action == "list" else WorkflowSerializer

    def create(self, request, *args, **kwargs):
        refuse_before_body(
            request.user,
            "edit_workflow",
            request.data,
            "your role in this project does not allow this (edit_workflow)",
        )
        return super().create(request, *args, **kwargs)

    def perform_create(self, serializer):
        _require(self.request.user, "edit_workflow", serializer.validated_data["project"])
        serializer.save(created_by=self.request.user, updated_by=self.request.user)

    def perform_update(self, serializer):
        serializer.save(updated_by=self.request.user)

    def _version(self, workflow: Workflow, number) -> WorkflowVersion:
        return get_object_or_404(
            WorkflowVersion.objects.select_related("author"), workflow=workflow, number=number
        )

    @extend_schema(request=ValidateRequestSerializer, responses=ValidationResultSerializer)
    @action(detail=True, methods=["post"])
    def validate(self, request, pk=None):
        """Every error of a spec with its JSON path, the non-blocking warnings, and the complexity advice."""
        workflow = self.get_object()
        body = ValidateRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        spec = body.validated_data.get("spec", workflow.spec)
        return Response(spec_report(spec))

    @extend_schema(request=PublishSerializer, responses={201: WorkflowVersionSerializer})
    @action(detail=True, methods=["post"])
    def publish(self, request, pk=None):
        """Snapshot the draft as a new immutable version (only a valid spec can be published)."""
        workflow = self.get_object()
        body = PublishSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        with transaction.atomic():
            workflow = Workflow.objects.select_for_update().get(pk=workflow.pk)
            errors = validate_spec(workflow.spec, confined=True)
            if errors:
                return _invalid_spec_response(errors, "fix them before publishing")
            number = (workflow.versions.aggregate(n=Max("number"))["n"] or 0) + 1
            version = WorkflowVersion.objects.create(
                workflow=workflow,
                number=number,
                spec=workflow.spec,
                layout=workflow.layout,
                note=body.validated_data["note"],
                author=request.user,
            )
        return Response(WorkflowVersionSerializer(version).data, status=status.HTTP_201_CREATED)

    @extend_schema(responses=WorkflowVersionListSerializer(many=True))
    @action(detail=True, methods=["get"])
    def versions(self, request, pk=None):
        """Published versions, newest first (paginated)."""
        workflow = self.get_object()
        qs = workflow.versions.select_related("author").order_by("-number")
        page = self.paginate_queryset(qs)
        return self.get_paginated_response(WorkflowVersionListSerializer(page, many=True).data)

    @extend_schema(responses=WorkflowVersionSerializer)
    @action(detail=True, methods=["get"], url_path=r"versions/(?P<number>[0-9]+)")
    def version(self, request, pk=None, number=None):
        """One published version with its spec and layout."""
        return Response(WorkflowVersionSerializer(self._version(self.get_object(), number)).data)

    @extend_schema(request=None, responses=WorkflowSerializer)
    @action(detail=True, methods=["post"], url_path=r"versions/(?P<number>[0-9]+)/restore")
    def restore(self, request, pk=None, number=None):
        """Copy a published version into the draft (the version itself is left untouched)."""
        workflow = self.get_object()
        version = self._version(workflow, number)
        workflow.spec, workflow.layout, workflow.updated_by = version.spec, version.layout, request.user
        workflow.save()
        return Response(WorkflowSerializer(workflow).data)

    @extend_schema(
        parameters=[
            OpenApiParameter("base", str, description="a version number or 'draft'", required=True),
            OpenApiParameter("target", str, description="a version number or 'draft' (default)"),
        ],
        responses=DiffSerializer,
    )
    @action(detail=True, methods=["get"])
    def diff(self, request, pk=None):
        """What changed between two versions (or a version and the draft), path by path."""
        workflow = self.get_object()
        sides = {}
        for name, default in (("base", None), ("target", "draft")):
            ref = request.query_params.get(name, default)
            if ref is None:
                raise ValidationError({name: ["required: a version number or 'draft'"]})
            if ref == "draft":
                sides[name] = workflow.spec
            elif re.fullmatch(r"[0-9]{1,9}", ref):
                version = workflow.versions.filter(number=int(ref)).first()
                if version is None:
                    raise ValidationError({name: [f"workflow has no version {ref}"]})
                sides[name] = version.spec
            else:
                raise ValidationError({name: ["must be a version number or 'draft'"]})
        base = request.query_params.get("base")
        target = request.query_params.get("target", "draft")
        return Response(
            {"base": base, "target": target, **documents.diff_specs(sides["base"], sides["target"])}
        )

    @extend_schema(
        parameters=[OpenApiParameter("version", int, description="a version number; the draft when omitted")],
        responses={(200, "application/json"): OpenApiTypes.OBJECT},
    )
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None):
        """The spec as a JSON file (the draft, or `?version=N`), loadable by the CLI and by import."""
        workflow = self.get_object()
        ref = request.query_params.get("version")
        if ref is None:
            spec, suffix = workflow.spec, "draft"
        elif re.fullmatch(r"[0-9]{1,9}", ref):
            spec, suffix = self._version(workflow, int(ref)).spec, f"v{ref}"
        else:
            raise ValidationError({"version": ["must be a version number"]})
        slug = re.sub(r"[^a-z0-9]+", "-", workflow.name.lower()).strip("-") or "workflow"
        response = JsonResponse(spec, json_dumps_params={"indent": 2, "ensure_ascii": False})
        response["Content-Disposition"] = f'attachment; filename="{slug}-{suffix}.json"'
        return response

    @extend_schema(
        request=ImportSerializer, responses={200: WorkflowSerializer}, operation_id="workflows_import_into"
    )
    @action(detail=True, methods=["post"], url_path="import")
    def import_into(self, request, pk=None):
        """Replace the draft with an imported spec; an invalid spec is refused and nothing is saved."""
        workflow = self.get_object()
        body = ImportSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        spec = body.validated_data["spec"]
        errors = validate_spec(spec, confined=True)
        if errors:
            return _invalid_spec_response(errors, "nothing was saved")
        workflow.spec, workflow.layout = spec, body.validated_data.get("layout", {})
        workflow.updated_by = request.user
        workflow.save()
        return Response(WorkflowSerializer(workflow).data)

    @extend_schema(
        request=ImportSerializer, responses={201: WorkflowSerializer}, operation_id="workflows_import_new"
    )
    @action(detail=False, methods=["post"], url_path="import")
    def import_new(self, request):
        """Create a workflow from an imported spec (`project` required); nothing is saved when invalid."""
        body = ImportSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        project = body.validated_data.get("project")
        if project is None:
            raise ValidationError({"project": ["required: the project to import into"]})
        _require(request.user, "edit_workflow", project)
        spec = body.validated_data["spec"]
        errors = validate_spec(spec, confined=True)
        if errors:
            return _invalid_spec_response(errors, "nothing was saved")
        name = body.validated_data.get("name") or str(spec.get("name") or "Imported workflow")[:200]
        workflow = Workflow.objects.create(
            project=project,
            name=name,
            spec=spec,
            layout=body.validated_data.get("layout", {}),
            created_by=request.user,
            updated_by=request.user,
        )
        return Response(WorkflowSerializer(workflow).data, status=status.HTTP_201_CREATED)


class TemplateListView(APIView):
    """The template gallery: the five shipped workflows, ready to open in the designer."""

    @extend_schema(responses=TemplateSummarySerializer(many=True))
    def get(self, request):
        return Response([t.summary() for t in documents.templates()])


class TemplateDetailView(APIView):
    """One gallery template with its full spec."""

    @extend_schema(responses=TemplateSerializer)
    def get(self, request, slug: str):
        found = documents.template(slug)
        if found is None:
            raise NotFound(f"no template {slug!r}")
        return Response({**found.summary(), "spec": found.spec})


def _environment_parameters() -> dict[str, list]:
    """Each registered environment's parameters; one whose module cannot be imported here (an optional
    dependency missing) is left out rather than failing the whole catalogue, and the designer with it."""
    out = {}
    for name in sorted(REGISTRY):
        try:
            out[name] = env_parameters(name)
        except EnvironmentUnavailableError:
            continue
    return out


def _spec_defaults() -> dict:
    """What the library fills in where a spec leaves a setting out (its dataclasses own the defaults), for
    the designer's editors to show: each section of a team, and under "agent" one agent's settings."""
    team = TeamSpec(name="", agents=()).to_dict()
    agent = AgentSpec(id="", role="", prompt="").to_dict()
    sections = {key: value for key, value in team.items() if isinstance(value, dict)}
    return {
        **sections,
        "agent": {k: v for k, v in agent.items() if k not in ("id", "role", "prompt", "intents", "clue")},
    }


class CatalogueView(APIView):
    """What the designer's palette and editors offer: roles, reward terms, presets, phases, each
    environment's parameters (for the Environment tab), the JSON Schema of the spec's declared
    sections (each option's type, default, range, choices and description), and every default the
    library fills in (the editors show them for settings a spec leaves out)."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response(
            {
                "roles": [r.to_dict() for r in ROLES.values()],
                "reward_terms": [t.to_dict() for t in REWARD_TERMS.values()],
                "presets": {
                    name: {t: dict(w) for t, w in terms.items()} for name, terms in REWARD_PRESETS.items()
                },
                "phases": list(PHASES),
                "limits": dict(LIMITS),
                "environments": _environment_parameters(),
                "intents": intent_catalogues(),  # per environment: what an agent may own (checkboxes)
                "prompt_routing": prompt_routing(),  # per environment whose policy reads prompts: the switch
                "algorithms": algorithm_catalog(),  # each training algorithm with its capabilities
                "defaults": _spec_defaults(),  # what the editors show for a setting the spec leaves out
                "schema": spec_schema(),  # JSON Schema of the declared sections (agents.spec.schema)
            }
        )
