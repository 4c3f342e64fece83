from __future__ import annotations

from rest_framework import serializers

from agents.envs.scripted import SCRIPTED_ENVIRONMENTS
from agents.spec import validate_spec, with_episodes
from mase_web.accounts.facade import Project, ProjectField, request_user
from mase_web.runs.facade import teacher_problem
from mase_web.runs.models import Checkpoint, Run, RunEvent
from mase_web.runs.tags import TagsField
from mase_web.workflows.facade import TemplateNotFound, VersionNotFound, gallery_template, published_spec
from training.baselines import has_baselines


class RunSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )
    last_seq = serializers.IntegerField(read_only=True, required=False, allow_null=True)
    tags = serializers.SerializerMethodField()
    error = serializers.CharField(source="shown_error", read_only=True)  # without the server's paths

    class Meta:
        model = Run
        fields = [
            "id", "project", "name", "kind", "device", "state", "source", "created_by", "created_at",
            "started_at", "finished_at", "worker", "deliveries", "cancel_requested", "error", "metrics", "last_seq",
            "tags",
        ]  # fmt: skip
        read_only_fields = fields

    def get_tags(self, run: Run) -> list[str]:
        return sorted(tag.name for tag in run.tag_rows.all())  # prefetched by the views


class RunDetailSerializer(RunSerializer):
    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "spec"]
        read_only_fields = fields


class OverridesSerializer(serializers.Serializer):
    """Launch-time changes to the spec that keep its provenance (recorded in the run's `source`)."""

    episodes = serializers.IntegerField(
        required=False, min_value=1, max_value=10**9, help_text="the training episode budget"
    )


def apply_overrides(spec: dict, overrides: dict) -> dict:
    """A copy of `spec` with the launch overrides applied (`episodes` sets `training.episodes`)."""
    if not overrides:
        return spec
    changed = {**spec}
    if "episodes" in overrides:
        training = changed.get("training")
        if not isinstance(training, dict):
            raise serializers.ValidationError(
                {"overrides": {"episodes": ["the spec has no training section to set the budget in"]}}
            )
        changed = with_episodes(changed, overrides["episodes"])  # the one place a budget is written
    return changed


class LaunchSerializer(serializers.Serializer):
    """Launch from a published workflow version (`workflow`, optional `version`), a gallery `template`
    or a `spec`; `overrides` (e.g. the episode budget) change the spec and are recorded in the run's `source`."""

    project = ProjectField(required=False)
    name = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=Run.Kind.choices, default=Run.Kind.TRAINING)
    device = serializers.ChoiceField(choices=Run.Device.choices, default=Run.Device.CPU)
    # An object (the launch overrides edit its sections); whether it is a valid spec is checked in validate.
    spec = serializers.DictField(required=False)
    workflow = serializers.IntegerField(required=False, min_value=1)
    version = serializers.IntegerField(required=False, min_value=1)
    template = serializers.CharField(
        required=False,
        max_length=100,
        help_text="the slug of a gallery template (GET /api/workflows/templates/): the run takes its spec "
        "and its source names the template",
    )
    overrides = OverridesSerializer(required=False)
    tags = TagsField(required=False)
    baselines = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="after training, evaluate the team beside its rules and imitation on the same held-out "
        "episodes and say whether MARL paid (recorded in the run's source); null: on when the team has "
        "baselines (training.baselines.has_baselines)",
    )

    def validate(self, data):
        if sum(key in data for key in ("spec", "workflow", "template")) != 1:
            raise serializers.ValidationError(
                {"spec": ["give one of a spec, a published workflow or a gallery template"]}
            )
        data["source"] = {"kind": "spec"}
        if "template" in data:
            try:
                chosen = gallery_template(data.pop("template"))
            except TemplateNotFound as exc:
                raise serializers.ValidationError({"template": [str(exc)]}) from None
            data["spec"], data["source"] = chosen.spec, {"kind": "template", **chosen.source}
        if "workflow" in data:
            try:
                published = published_spec(
                    request_user(self), data.pop("workflow"), data.pop("version", None)
                )
            except VersionNotFound as exc:
                raise serializers.ValidationError({"workflow": [str(exc)]}) from None
            if "project" in data and data["project"].pk != published.project_id:
                raise serializers.ValidationError(
                    {
                        "workflow": [
                            f"workflow {published.workflow_id} belongs to another project; launch it there"
                        ]
                    }
                )
            data["spec"], data["source"] = published.spec, {"kind": "workflow", **published.source}
            data["project"] = Project.objects.get(pk=published.project_id)
        if "project" not in data:
            raise serializers.ValidationError(
                {"project": ["required when launching from a spec or a template"]}
            )
        overrides = dict(data.pop("overrides", None) or {})
        if overrides:
            data["spec"] = apply_overrides(data["spec"], overrides)
            data["source"] = {**data["source"], "overrides": overrides}
        errors = validate_spec(data["spec"], require_environment=True, confined=True)
        if errors:
            raise serializers.ValidationError({"spec": {e.path: [e.message] for e in errors}})
        problem = teacher_problem(data["spec"], data["project"].pk)
        if problem:
            raise serializers.ValidationError({"spec": {"$.training.teacher_checkpoint": [problem]}})
        if _baselines_choice(data):  # recorded only when on: the worker reads it from the run's source
            data["source"] = {**data["source"], "baselines": True}
        return data


def _baselines_choice(data: dict) -> bool:
    """Whether the run evaluates its baselines: as asked, else wherever the team has them; asked for a
    team without them (or for an evaluation run) is a field error."""
    asked = data.pop("baselines", None)
    available = data.get("kind", Run.Kind.TRAINING) == Run.Kind.TRAINING and has_baselines(data["spec"])
    if asked and not available:
        raise serializers.ValidationError(
            {
                "baselines": [
                    "this run has no baselines to compare with: they need a training run of a MAPPO or IPPO "
                    f"team in an environment that ships rules ({', '.join(SCRIPTED_ENVIRONMENTS)})"
                ]
            }
        )
    return available if asked is None else bool(asked)


class RunEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = RunEvent
        fields = ["seq", "type", "payload", "time"]

    def to_representation(self, event):  # a checkpoint's path relative to the run, never the server's
        return {**super().to_representation(event), "payload": event.shown_payload}


class CheckpointSerializer(serializers.ModelSerializer):
    class Meta:
        model = Checkpoint
        fields = ["step", "path", "metrics", "created_at"]

    def to_representation(self, checkpoint):  # its directory relative to the run, never the server's path
        return {**super().to_representation(checkpoint), "path": checkpoint.shown_path}


class TagsSerializer(serializers.Serializer):
    tags = TagsField()


class DeviceSerializer(serializers.Serializer):
    device = serializers.ChoiceField(choices=Run.Device.choices)
