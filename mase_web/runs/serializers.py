from __future__ import annotations

from rest_framework import serializers

from agents.spec import validate_spec
from mase_web.accounts.models import Project
from mase_web.runs.models import Checkpoint, Run, RunEvent


class RunSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)
    last_seq = serializers.IntegerField(read_only=True, required=False)

    class Meta:
        model = Run
        fields = [
            "id", "project", "name", "kind", "device", "state", "source", "created_by", "created_at",
            "started_at", "finished_at", "worker", "deliveries", "cancel_requested", "error", "metrics", "last_seq",
        ]  # fmt: skip
        read_only_fields = fields


class RunDetailSerializer(RunSerializer):
    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "spec"]
        read_only_fields = fields


class LaunchSerializer(serializers.Serializer):
    project = serializers.PrimaryKeyRelatedField(queryset=Project.objects.all())
    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=Run.Kind.choices, default=Run.Kind.TRAINING)
    device = serializers.ChoiceField(choices=Run.Device.choices, default=Run.Device.CPU)
    spec = serializers.JSONField()
    source = serializers.JSONField(required=False, default=dict)

    def validate_spec(self, value):
        errors = validate_spec(value, require_environment=True)
        if errors:
            raise serializers.ValidationError({e.path: [e.message] for e in errors})
        return value


class RunEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = RunEvent
        fields = ["seq", "type", "payload", "time"]


class CheckpointSerializer(serializers.ModelSerializer):
    class Meta:
        model = Checkpoint
        fields = ["step", "path", "metrics", "created_at"]
