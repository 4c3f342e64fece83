"""REST API of datasets: a project's own data, uploaded as JSONL or CSV into immutable versions.

Every member of a project reads its datasets (`view_dataset`); product managers, operators and admins
create them and upload versions (`edit_dataset`). A dataset or version of a project the caller is not in
answers 404; a project id in a body the caller is not in answers 400 like a missing one.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.fields import empty
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response

from mase_web.accounts.facade import can, projects_where
from mase_web.api_parsers import CheckedFormParser, CheckedMultiPartParser, LimitedJSONParser, escape
from mase_web.datasets import service
from mase_web.datasets.export import export_upload_jsonl, write_training_files
from mase_web.datasets.models import Dataset, DatasetVersion
from mase_web.datasets.serializers import (
    DatasetRowSerializer,
    DatasetSerializer,
    DatasetUploadRefusedSerializer,
    DatasetUploadResultSerializer,
    DatasetUploadSerializer,
    DatasetVersionSerializer,
    ExportFiltersSerializer,
    LabelDistributionSerializer,
    RowFiltersSerializer,
    SplitsSummarySerializer,
    TrainingFilesSerializer,
)
from mase_web.datasets.upload import MAX_LISTED, FileRefused, duplicates, guess_format, read_upload
from mase_web.datasets.versions import create_version

WRITE_REFUSED = "only product managers, operators and admins of this project change its datasets"


class DatasetPages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


def require_editor(user, project_id: int) -> None:
    if not can(user, "edit_dataset", project_id):
        raise PermissionDenied(WRITE_REFUSED)


class DatasetViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """Datasets of your projects, each with its newest version. POST creates an empty one (upload next)."""

    serializer_class = DatasetSerializer
    pagination_class = DatasetPages
    filterset_fields = ["project"]
    http_method_names = ["get", "post", "patch", "head", "options"]
    parser_classes = [LimitedJSONParser, CheckedMultiPartParser, CheckedFormParser]

    def get_queryset(self):
        projects = projects_where(self.request.user, "view_dataset")
        return Dataset.objects.filter(project__in=projects).select_related("project", "created_by")

    def get_object(self) -> Dataset:
        dataset = super().get_object()
        if self.action in ("update", "partial_update", "upload"):
            require_editor(self.request.user, dataset.project_id)  # before the body is judged
        return dataset

    def create(self, request, *args, **kwargs):
        field = self.get_serializer().fields["project"]
        try:
            project = field.run_validation(request.data.get("project", empty))
        except ValidationError as exc:
            raise ValidationError({"project": exc.detail}) from None
        require_editor(request.user, project.pk)
        return super().create(request, *args, **kwargs)

    def perform_create(self, serializer):
        _save_unique_name(serializer, created_by=self.request.user)

    def perform_update(self, serializer):
        _save_unique_name(serializer)

    @extend_schema(responses=DatasetVersionSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=None)
    def versions(self, request, pk=None):
        """Every version of the dataset, newest first."""
        dataset = self.get_object()
        versions = dataset.versions.select_related("created_by").order_by("-number")
        return Response(DatasetVersionSerializer(versions, many=True).data)

    @extend_schema(
        request={"multipart/form-data": DatasetUploadSerializer},
        responses={
            201: DatasetUploadResultSerializer,
            400: OpenApiResponse(
                DatasetUploadRefusedSerializer,
                description="The input was refused; `errors` names each field at fault, and a file with no "
                "usable row lists its rows' problems in `row_errors`.",
            ),
        },
    )
    @action(detail=True, methods=["post"])
    def upload(self, request, pk=None):
        """Upload a JSONL or CSV file as the dataset's next version. Every bad row is listed by line and
        field and left out; the version holds the good rows (none good: 400, nothing stored)."""
        dataset = self.get_object()
        body = DatasetUploadSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        options = body.validated_data
        upload = options["file"]
        raw = upload.read(settings.DATASET_MAX_BYTES + 1)
        file_format = options.get("file_format") or guess_format(upload.name or "", raw)
        try:
            read = read_upload(raw, file_format, dataset.intent_names(), settings.DATASET_MAX_ROWS)
        except FileRefused as exc:
            raise ValidationError({exc.field: [str(exc)]}) from None
        if not read.rows:
            return _nothing_usable(read)
        for row in read.rows:
            row.by_id = request.user.pk
        version = create_version(
            dataset,
            read.rows,
            keep_parent_rows=options["mode"] == "append",
            by=request.user,
            seed=options.get("seed"),
            note=f"{options['mode']} from {_shown_name(upload.name)}",
        )
        result = {
            "dataset": dataset.pk,
            "version": DatasetVersionSerializer(version).data,
            "accepted": len(read.rows),
            "refused": read.refused,
            "errors": read.errors[:MAX_LISTED],
            "errors_total": len(read.errors),
            "duplicates": duplicates(read.rows),
            "splits": service.split_counts(version),
        }
        return Response(result, status=status.HTTP_201_CREATED)


def _save_unique_name(serializer, **fields) -> None:
    """Save; a name taken by a request that passed validation at the same moment is a 400, not a 500."""
    try:
        with transaction.atomic():
            serializer.save(**fields)
    except IntegrityError:
        raise ValidationError({"name": ["this project already has a dataset of that name"]}) from None


def _shown_name(name: str | None) -> str:
    """The uploaded file's own name (no folders; the browser sends only that, a script may send more)."""
    base = os.path.basename((name or "").replace("\\", "/")) or "a file"
    return escape(base)[:200]


def _nothing_usable(read) -> Response:
    """400 in the API's error shape, each bad line a field path (``line 3.text``), plus ``row_errors``
    ({line, field, message}, as a 201 lists them), ``errors_total`` and ``refused``."""
    errors: dict[str, list[str]] = {}
    for error in read.errors[:MAX_LISTED]:
        errors.setdefault(f"line {error['line']}.{error['field']}", []).append(error["message"])
    if not errors:
        errors["file"] = ["the file holds no rows"]
    body = {
        "detail": "no row of the file could be used; nothing was stored",
        "errors": errors,
        "row_errors": read.errors[:MAX_LISTED],
        "errors_total": len(read.errors),
        "refused": read.refused,
    }
    return Response(body, status=status.HTTP_400_BAD_REQUEST)


ROW_FILTERS = [
    OpenApiParameter("split", str, enum=["train", "dev", "test"]),
    OpenApiParameter("intent", str, description="rows carrying this intent"),
    OpenApiParameter("provenance", str, enum=["uploaded", "generated", "corrected", "annotated"]),
    OpenApiParameter("unlabelled", bool, description="true: only rows without intents; false: only labelled"),
    OpenApiParameter("search", str, description="rows whose text holds this (case-insensitive)"),
]


class DatasetVersionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Versions of your projects' datasets (immutable), their rows, label distribution, splits and export."""

    serializer_class = DatasetVersionSerializer
    pagination_class = DatasetPages
    filterset_fields = ["dataset"]

    def get_queryset(self):
        projects = projects_where(self.request.user, "view_dataset")
        return DatasetVersion.objects.filter(dataset__project__in=projects).select_related(
            "dataset", "created_by"
        )

    @extend_schema(parameters=ROW_FILTERS, responses=DatasetRowSerializer(many=True))
    @action(detail=True, methods=["get"])
    def rows(self, request, pk=None):
        """The version's rows in order, filtered; paginated (``page``, ``page_size`` up to 500)."""
        version = self.get_object()
        filters = RowFiltersSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        rows = _filtered(service.version_rows(version).select_related("by"), filters.validated_data)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(DatasetRowSerializer(page, many=True).data)

    @extend_schema(responses=LabelDistributionSerializer)
    @action(detail=True, methods=["get"])
    def labels(self, request, pk=None):
        """How many rows carry each intent (overall and per split; the catalogue's unused intents at 0) and
        how many are unlabelled."""
        version = self.get_object()
        distribution = service.label_distribution(version)
        present = {entry["name"] for entry in distribution["intents"]}
        for name in version.dataset.intent_names() or []:
            if name not in present:
                distribution["intents"].append({"name": name, "count": 0, "train": 0, "dev": 0, "test": 0})
        return Response(distribution)

    @extend_schema(responses=SplitsSummarySerializer)
    @action(detail=True, methods=["get"])
    def splits(self, request, pk=None):
        """Rows per split, and per split and provenance; the seed they were drawn with."""
        version = self.get_object()
        by_provenance: dict[str, dict[str, int]] = {"train": {}, "dev": {}, "test": {}}
        counted = service.version_rows(version).values_list("split", "provenance").annotate(n=Count("id"))
        for split, provenance, count in counted.order_by():
            by_provenance.setdefault(split, {})[provenance] = count
        return Response(
            {
                "seed": version.split_seed,
                "counts": service.split_counts(version),
                "by_provenance": by_provenance,
            }
        )

    @extend_schema(
        parameters=[OpenApiParameter("split", str, enum=["train", "dev", "test"])],
        responses={(200, "application/jsonl"): OpenApiTypes.STR},
    )
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None):
        """The version's rows (one split, or all) as JSONL a re-upload reads back unchanged (`export_upload_jsonl`:
        text, intents, owner, reference_reply, metadata, and the row's own id), a download."""
        version = self.get_object()
        filters = ExportFiltersSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        split = filters.validated_data.get("split")
        response = HttpResponse(
            export_upload_jsonl(version, split), content_type="application/jsonl; charset=utf-8"
        )
        name = f"dataset-{version.dataset_id}-v{version.number}-{split or 'all'}.jsonl"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    @extend_schema(request=None, responses={201: TrainingFilesSerializer})
    @action(detail=True, methods=["post"], url_path="training-files")
    def training_files(self, request, pk=None):
        """Make the version a routing team's training data: its labelled rows written once where a spec finds
        them, and the name the spec gives (``environment.params.tickets``). Editors of the dataset only."""
        version = self.get_object()
        require_editor(request.user, version.dataset.project_id)
        labelled = service.version_rows(version).exclude(intent_key="")
        counts = {split: labelled.filter(split=split).count() for split in ("train", "dev", "test")}
        if not counts["train"]:
            raise ValidationError({"version": ["the version has no labelled training rows to train on"]})
        try:
            name = write_training_files(version, labelled_only=True, skip_empty=True)
        except RuntimeError as exc:  # the server has no data directory for training files
            raise ValidationError({"version": [str(exc)]}) from None
        return Response({"tickets": name, "counts": counts}, status=status.HTTP_201_CREATED)


def _filtered(rows, filters: dict):
    if filters.get("split"):
        rows = rows.filter(split=filters["split"])
    if filters.get("provenance"):
        rows = rows.filter(provenance=filters["provenance"])
    if filters.get("intent"):
        rows = rows.filter(intent_key__contains=f"|{filters['intent'].strip()}|")
    if filters.get("unlabelled") is True:
        rows = rows.filter(intent_key="")
    elif filters.get("unlabelled") is False:
        rows = rows.exclude(intent_key="")
    if filters.get("search"):
        rows = rows.filter(text__icontains=filters["search"])
    return rows
