"""Request and response shapes of the datasets API; every check answers with field messages."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from mase_web.accounts.facade import ProjectField
from mase_web.api_schema import ApiErrorSerializer
from mase_web.datasets.models import Dataset, DatasetRow, DatasetVersion, Provenance, Split
from mase_web.datasets.validation import MAX_NAME

MAX_CATALOGUE = 200
MAX_DESCRIPTION = 2000
MAX_DATASET_DESCRIPTION = 5000  # as a workflow's
MAX_KEYWORDS = 50
SEED_MAX = 2**31 - 1


def _user(field_source: str) -> serializers.CharField:
    return serializers.CharField(source=field_source, read_only=True, allow_null=True, default=None)


class DatasetIntentSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=MAX_NAME)
    description = serializers.CharField(max_length=MAX_DESCRIPTION, allow_blank=True, default="")
    keywords = serializers.ListField(
        child=serializers.CharField(max_length=MAX_NAME), max_length=MAX_KEYWORDS, required=False
    )

    def validate_name(self, name: str) -> str:
        if "|" in name or ";" in name:
            raise serializers.ValidationError("may not hold '|' or ';'")
        return name


class DatasetCatalogueSerializer(serializers.Serializer):
    """``{"intents": [{"name", "description", "keywords"?}]}``: the intents the dataset's rows may carry."""

    intents = DatasetIntentSerializer(many=True, max_length=MAX_CATALOGUE)

    def validate_intents(self, intents: list[dict[str, Any]]) -> list[dict[str, Any]]:
        names = [intent["name"] for intent in intents]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise serializers.ValidationError(f"intents named more than once: {', '.join(repeated)}")
        return intents


@extend_schema_field(DatasetCatalogueSerializer(allow_null=True))
class CatalogueField(serializers.JSONField):
    """A dataset's catalogue, checked by `DatasetCatalogueSerializer` and stored as given (null: any intent)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if value is None:
            return None
        checked = DatasetCatalogueSerializer(data=value)
        checked.is_valid(raise_exception=True)
        return {"intents": [dict(intent) for intent in checked.validated_data["intents"]]}


class DatasetVersionSerializer(serializers.ModelSerializer):
    created_by = _user("created_by.username")

    class Meta:
        model = DatasetVersion
        fields = [
            "id",
            "dataset",
            "number",
            "parent",
            "content_hash",
            "row_count",
            "split_seed",
            "note",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


class DatasetSerializer(serializers.ModelSerializer):
    project = ProjectField()
    catalogue = CatalogueField(required=False, allow_null=True)
    project_name = serializers.CharField(source="project.name", read_only=True)
    created_by = _user("created_by.username")
    latest_version = serializers.SerializerMethodField()

    class Meta:
        model = Dataset
        fields = [
            "id",
            "project",
            "project_name",
            "name",
            "description",
            "catalogue",
            "deployment",
            "created_by",
            "created_at",
            "latest_version",
        ]
        read_only_fields = ["id", "project_name", "deployment", "created_by", "created_at", "latest_version"]
        extra_kwargs = {"description": {"max_length": MAX_DATASET_DESCRIPTION}}

    @extend_schema_field(DatasetVersionSerializer(allow_null=True))
    def get_latest_version(self, dataset: Dataset) -> dict | None:
        latest = dataset.versions.select_related("created_by").order_by("-number").first()
        return DatasetVersionSerializer(latest).data if latest is not None else None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if self.instance is not None and attrs.get("project", self.instance.project) != self.instance.project:
            raise serializers.ValidationError({"project": ["a dataset stays in its project"]})
        project = attrs.get("project") or getattr(self.instance, "project", None)
        name = attrs.get("name")
        if name is not None and project is not None:
            taken = Dataset.objects.filter(project=project, name=name)
            if self.instance is not None:
                taken = taken.exclude(pk=self.instance.pk)
            if taken.exists():
                raise serializers.ValidationError(
                    {"name": ["this project already has a dataset of that name"]}
                )
        return attrs


class DatasetRowSerializer(serializers.ModelSerializer):
    by = _user("by.username")
    intents = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="[] = unlabelled"
    )
    metadata = serializers.DictField(read_only=True)

    class Meta:
        model = DatasetRow
        fields = [
            "id",
            "index",
            "line",
            "text",
            "intents",
            "owner",
            "reference_reply",
            "metadata",
            "split",
            "provenance",
            "source_ref",
            "by",
        ]
        read_only_fields = fields


class DatasetUploadSerializer(serializers.Serializer):
    """A file to upload as the dataset's next version."""

    file = serializers.FileField(help_text="JSONL or CSV (UTF-8)", allow_empty_file=True)
    file_format = serializers.ChoiceField(
        choices=["jsonl", "csv"],
        required=False,
        help_text="default: by the file's extension, else its content",
    )
    mode = serializers.ChoiceField(
        choices=["replace", "append"],
        default="replace",
        help_text="replace: the version holds the file's rows; append: the latest version's rows, then the file's",
    )
    seed = serializers.IntegerField(
        min_value=0,
        max_value=SEED_MAX,
        required=False,
        help_text="split seed (default: the parent's, else 0)",
    )

    def validate_file(self, upload):
        limit = settings.DATASET_MAX_BYTES
        if upload.size > limit:
            raise serializers.ValidationError(
                f"the file is larger than {limit:,} bytes; split it or raise MASE_DATASET_MAX_BYTES"
            )
        return upload


class RowFiltersSerializer(serializers.Serializer):
    """Query parameters of a version's rows."""

    split = serializers.ChoiceField(choices=Split.choices, required=False)
    intent = serializers.CharField(max_length=MAX_NAME, required=False)
    provenance = serializers.ChoiceField(choices=Provenance.choices, required=False)
    unlabelled = serializers.BooleanField(required=False, allow_null=True, default=None)
    search = serializers.CharField(max_length=200, required=False, trim_whitespace=True)


class ExportFiltersSerializer(serializers.Serializer):
    split = serializers.ChoiceField(choices=Split.choices, required=False)


class RowErrorSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="the line of the file, from 1")
    field = serializers.CharField(help_text="text, intents[0], owner, ... or line for the row as a whole")
    message = serializers.CharField()


class DuplicateRowSerializer(serializers.Serializer):
    line = serializers.IntegerField()
    duplicate_of = serializers.IntegerField(help_text="the line of the first row with that text")
    kind = serializers.ChoiceField(
        choices=["exact", "near"], help_text="near: equal once case, punctuation and spacing are ignored"
    )


class DuplicatesSerializer(serializers.Serializer):
    exact = serializers.IntegerField()
    near = serializers.IntegerField()
    rows = DuplicateRowSerializer(many=True, help_text="the first 500")


class SplitCountsSerializer(serializers.Serializer):
    train = serializers.IntegerField()
    dev = serializers.IntegerField()
    test = serializers.IntegerField()


class DatasetUploadResultSerializer(serializers.Serializer):
    """What an upload made, and what it refused or found repeated."""

    dataset = serializers.IntegerField()
    version = DatasetVersionSerializer()
    accepted = serializers.IntegerField(help_text="rows stored from the file")
    refused = serializers.IntegerField(help_text="rows of the file with at least one error")
    errors = RowErrorSerializer(many=True, help_text="every problem of every refused row; the first 500")
    errors_total = serializers.IntegerField()
    duplicates = DuplicatesSerializer()
    splits = SplitCountsSerializer()


class DatasetUploadRefusedSerializer(ApiErrorSerializer):
    """The API's error shape; when a file was read but no row of it was usable, also its rows' problems."""

    row_errors = RowErrorSerializer(
        many=True,
        required=False,
        help_text="every problem of every refused row, as a 201 lists them; the first 500",
    )
    errors_total = serializers.IntegerField(required=False)
    refused = serializers.IntegerField(required=False, help_text="rows of the file with at least one error")


class IntentCountSerializer(SplitCountsSerializer):
    name = serializers.CharField()
    count = serializers.IntegerField()


class UnlabelledCountSerializer(SplitCountsSerializer):
    count = serializers.IntegerField()


class LabelDistributionSerializer(serializers.Serializer):
    """Rows per intent (most first; the catalogue's unused intents at 0), overall and per split."""

    intents = IntentCountSerializer(many=True)
    unlabelled = UnlabelledCountSerializer()
    out_of_scope = UnlabelledCountSerializer(
        help_text="rows with no intent marked out of scope (not unlabelled)"
    )


class SplitsSummarySerializer(serializers.Serializer):
    seed = serializers.IntegerField()
    counts = SplitCountsSerializer()
    by_provenance = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField()), help_text="{split: {provenance: rows}}"
    )


class TrainingFilesSerializer(serializers.Serializer):
    tickets = serializers.CharField(
        help_text="the name a routing spec gives in environment.params.tickets: the version's labelled train "
        "rows train, its dev rows select, its test rows stay out"
    )
    counts = SplitCountsSerializer(help_text="labelled rows per split")
