from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from mase_web.accounts.facade import ProjectField
from mase_web.workflows import documents
from mase_web.workflows.models import Workflow, WorkflowVersion


def _check(problems: dict[str, list[str]]) -> None:
    if problems:
        raise serializers.ValidationError(problems)


class SpecField(serializers.JSONField):
    """A team-spec document: any JSON object that is safe to store (validity is checked separately)."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        _check(documents.document_problems(value))
        return value


class LayoutField(serializers.JSONField):
    """Canvas positions: {agent_id: {"x": number, "y": number}}."""

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        _check(documents.layout_problems(value))
        return value


class WorkflowListSerializer(serializers.ModelSerializer):
    project_name = serializers.CharField(source="project.name", read_only=True)
    latest_version = serializers.SerializerMethodField()
    agents = serializers.SerializerMethodField()

    class Meta:
        model = Workflow
        fields = [
            "id",
            "project",
            "project_name",
            "name",
            "description",
            "agents",
            "latest_version",
            "updated_at",
        ]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_latest_version(self, obj: Workflow) -> int | None:
        return getattr(obj, "latest_number", None)

    @extend_schema_field(serializers.IntegerField())
    def get_agents(self, obj: Workflow) -> int:
        agents = obj.spec.get("agents") if isinstance(obj.spec, dict) else None
        return len(agents) if isinstance(agents, list) else 0


class WorkflowSerializer(serializers.ModelSerializer):
    """A workflow with its draft. On create, `template` (a gallery slug) pre-fills the spec."""

    project = ProjectField()
    project_name = serializers.CharField(source="project.name", read_only=True)
    spec = SpecField(required=False)
    layout = LayoutField(required=False)
    template = serializers.CharField(write_only=True, required=False, max_length=80)
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )
    updated_by = serializers.CharField(
        source="updated_by.username", read_only=True, allow_null=True, default=None
    )
    latest_version = serializers.SerializerMethodField()

    class Meta:
        model = Workflow
        fields = [
            "id",
            "project",
            "project_name",
            "name",
            "description",
            "spec",
            "layout",
            "template",
            "latest_version",
            "created_by",
            "updated_by",
            "created_at",
            "updated_at",
        ]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_latest_version(self, obj: Workflow) -> int | None:
        latest = obj.versions.order_by("-number").first()
        return latest.number if latest else None

    def validate_template(self, slug: str) -> str:
        if documents.template(slug) is None:
            names = ", ".join(t.slug for t in documents.templates())
            raise serializers.ValidationError(f"unknown template {slug!r}; choose one of: {names}")
        return slug

    def validate_project(self, project):
        if self.instance is not None and project != self.instance.project:
            raise serializers.ValidationError("a workflow cannot move to another project")
        return project

    def validate(self, attrs):
        if self.instance is None:
            slug = attrs.pop("template", None)
            if "spec" not in attrs:
                if slug:
                    attrs["spec"] = documents.template(slug).spec
                else:
                    attrs["spec"] = {
                        "spec_version": 1,
                        "name": attrs.get("name", "New workflow"),
                        "agents": [],
                    }
        else:
            attrs.pop("template", None)
        return attrs


class WorkflowVersionSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", read_only=True, allow_null=True, default=None)

    class Meta:
        model = WorkflowVersion
        fields = ["number", "note", "author", "created_at", "spec", "layout"]


class WorkflowVersionListSerializer(WorkflowVersionSerializer):
    class Meta(WorkflowVersionSerializer.Meta):
        fields = ["number", "note", "author", "created_at"]


class PublishSerializer(serializers.Serializer):
    note = serializers.CharField(max_length=500, help_text="What changed and why (shown in the history).")


class SpecProblemSerializer(serializers.Serializer):
    path = serializers.CharField()
    message = serializers.CharField()


class ValidateRequestSerializer(serializers.Serializer):
    spec = SpecField(required=False, help_text="The spec to check; the stored draft when omitted.")


class ValidationResultSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    errors = SpecProblemSerializer(many=True)
    warnings = SpecProblemSerializer(many=True)
    advice = serializers.JSONField(
        allow_null=True, help_text="agents.advisor.Advice.to_dict(); null when invalid"
    )
    prompts = serializers.DictField(
        child=serializers.CharField(allow_blank=True),
        help_text="per agent that leaves its prompt out, by id: the prompt it is given (its role's default, "
        "or under a catalogue of one's own the intents it owns in words)",
    )


class ImportSerializer(serializers.Serializer):
    """A spec document to import (it must be a valid team spec), with optional layout."""

    project = ProjectField(required=False)
    name = serializers.CharField(max_length=200, required=False)
    spec = SpecField()
    layout = LayoutField(required=False)


class DiffSerializer(serializers.Serializer):
    base = serializers.CharField()
    target = serializers.CharField()
    changes = serializers.JSONField()
    agents = serializers.JSONField()
    edges = serializers.JSONField()


class TemplateSummarySerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    agents = serializers.IntegerField()
    roles = serializers.ListField(child=serializers.CharField())
    environment = serializers.CharField(allow_null=True)


class TemplateSerializer(TemplateSummarySerializer):
    spec = serializers.JSONField()
