"""Serializers of deployments, episodes, decision steps, breaker history and batch jobs."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from mase_web.deployments.breaker_state import snapshot as breaker_snapshot
from mase_web.deployments.episode_review import decided_source, review_reason_of, review_status_of
from mase_web.deployments.models import (
    Alert,
    BatchJob,
    BreakerTransition,
    DecisionStep,
    Deployment,
    Episode,
)
from mase_web.deployments.writing import server_problems, shown_settings
from serving.generation import GenerationConfig, validate_config

NULLABLE_OBJECT = {"type": "object", "nullable": True, "additionalProperties": {}}  # an object, or null


class DeploymentSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )
    run_name = serializers.CharField(source="run.name", read_only=True)
    project_name = serializers.CharField(source="project.name", read_only=True)
    checkpoint = serializers.CharField(
        source="shown_checkpoint", read_only=True, help_text='relative to its run ("checkpoints/mappo/best")'
    )
    environment = serializers.SerializerMethodField()
    agents = serializers.SerializerMethodField()
    generation = serializers.SerializerMethodField()
    routing = serializers.BooleanField(
        source="routes_tickets", read_only=True, help_text="whether the team routes tickets by intents"
    )

    class Meta:
        model = Deployment
        fields = [
            "id", "project", "project_name", "name", "workflow", "run", "run_name", "checkpoint", "status",
            "created_by", "created_at", "breaker_state", "environment", "agents", "generation", "style_explore",
            "scope_gate", "routing",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_generation(self, deployment: Deployment) -> dict:
        """The writer's settings with every default filled in, and whether an API key is stored (never the key)."""
        try:
            shown = GenerationConfig.from_mapping(deployment.generation or {}).to_dict()
        except ValueError:
            shown = dict(deployment.generation or {})
        return {**shown_settings(shown), "api_key_stored": bool(deployment.generation_secret)}

    def get_environment(self, deployment: Deployment) -> str | None:
        return (deployment.spec.get("environment") or {}).get("name")

    def get_agents(self, deployment: Deployment) -> list[str]:
        return [a.get("id") for a in deployment.spec.get("agents") or []]


class DeploymentDetailSerializer(DeploymentSerializer):
    breaker = serializers.SerializerMethodField()
    fallback = serializers.SerializerMethodField()

    class Meta(DeploymentSerializer.Meta):
        fields = [*DeploymentSerializer.Meta.fields, "breaker", "fallback"]
        read_only_fields = fields

    def get_breaker(self, deployment: Deployment) -> dict:
        return breaker_snapshot(deployment)

    def get_fallback(self, deployment: Deployment) -> str:
        return (deployment.spec.get("fallback") or {}).get("kind", "none")


class GenerationSerializer(serializers.Serializer):
    """Which backend writes the replies, and its settings (`serving.generation.GenerationConfig`).

    ``api_key`` is write-only: stored encrypted, never returned (``api_key_stored`` says whether one is)."""

    settings = serializers.JSONField(
        required=False, help_text="backend, model, base_url, api_key_env, timeout_s, max_retries, …"
    )
    api_key = serializers.CharField(
        required=False, allow_blank=True, write_only=True, max_length=500, trim_whitespace=True,
        help_text="the backend's API key (or name an environment variable in settings.api_key_env)",
    )  # fmt: skip

    def validate_settings(self, value):
        """Valid settings (`validate_config`) that this server allows (`writing.server_problems`)."""
        errors = validate_config(value if isinstance(value, dict) else None) or server_problems(value)
        if errors:
            raise serializers.ValidationError([f"{key}: {text}" for key, text in errors.items()])
        return value


class DeploySerializer(serializers.Serializer):
    """Deploy a succeeded run's checkpoint (its best, else its last, unless `checkpoint` names one)."""

    run = serializers.IntegerField(min_value=1)
    name = serializers.CharField(max_length=200, required=False, allow_blank=False)
    checkpoint = serializers.IntegerField(
        min_value=1, required=False, help_text="id of one of the run's checkpoints (default: the best)"
    )
    generation = GenerationSerializer(required=False, help_text="the reply writer (default: template)")
    confidence_threshold = serializers.FloatField(
        min_value=0.0,
        max_value=1.0,
        required=False,
        help_text="the circuit breaker's confidence threshold (default: the run's spec's; "
        "GET deployments/preview/ shows how often the team would fall back at it)",
    )
    scope_gate = serializers.BooleanField(
        required=False,
        help_text="routing teams: hand tickets outside the intent catalogue to a person (default: the site's)",
    )


class DeployCandidateSerializer(serializers.Serializer):
    """A succeeded training run offered for deployment; `why` says what keeps it from being deployed."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    project = serializers.IntegerField()
    deployable = serializers.BooleanField()
    why = serializers.CharField(allow_null=True)
    confidence_threshold = serializers.FloatField(
        allow_null=True, help_text="the run's own breaker threshold, kept unless the deploy form moves it"
    )
    routing = serializers.BooleanField(
        help_text="whether the team routes tickets by intents (a scope gate applies)"
    )
    scope_gate = serializers.BooleanField(help_text="where its scope gate starts unless the form changes it")
    fallback_preview = serializers.BooleanField(
        help_text="whether /api/deployments/preview/ can replay this run's dev split (its environment has one)"
    )


class TicketSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=4000, trim_whitespace=True)
    source = serializers.ChoiceField(choices=["api", "browser"], default="api")


class ForceSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["open", "closed"])
    reason = serializers.CharField(max_length=1000, trim_whitespace=True)


class OutOfScopeSerializer(serializers.Serializer):
    """Why a ticket was not played: the check that turned it away (the runtime's ``request``: a
    `serving.scope.ScopeGate.check` verdict for a routing team, a `serving.requests` match for a writing one)."""

    handoff = serializers.BooleanField(help_text="the scope gate handed it to a person (a routing team)")
    nearest = serializers.CharField(
        allow_null=True, help_text="the nearest intent (the scope gate) or item (a writing team), if known"
    )
    score = serializers.FloatField(allow_null=True, help_text="its similarity to the nearest one, if known")
    floor = serializers.FloatField(
        allow_null=True, help_text="the similarity it had to beat to be kept (the scope floor), if known"
    )
    in_scope_probability = serializers.FloatField(
        allow_null=True,
        help_text='the "none of these" class\'s probability that it is in scope; null for a check without one',
    )
    threshold = serializers.FloatField(
        allow_null=True, help_text="the probability that would have kept it; null with in_scope_probability"
    )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def out_of_scope_of(episode: Episode) -> dict | None:
    """The check that turned a ticket away (status ``out_of_scope``), as `OutOfScopeSerializer` shows it;
    None for a ticket the team played. Numbers the check did not give (an episode stored before they were
    kept, a request named outright) are None."""
    if episode.status != Episode.Status.OUT_OF_SCOPE:
        return None
    request = (episode.result or {}).get("request") or {}
    nearest = request.get("nearest") or request.get("item")
    numbers = ("score", "floor", "in_scope_probability", "threshold")
    return {
        "handoff": bool(request.get("handoff")),
        "nearest": nearest if isinstance(nearest, str) else None,
        **{key: _number(request.get(key)) for key in numbers},
    }


class EpisodeSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )
    deployment_name = serializers.CharField(source="deployment.name", read_only=True)
    run = serializers.IntegerField(source="deployment.run_id", read_only=True)
    answer = serializers.SerializerMethodField()
    sources = serializers.SerializerMethodField()
    reply = serializers.SerializerMethodField()
    event = serializers.SerializerMethodField()
    out_of_scope = serializers.SerializerMethodField()

    class Meta:
        model = Episode
        fields = [
            "id", "deployment", "deployment_name", "run", "request_id", "task_id", "task_text", "source", "batch",
            "status", "reward", "breaker_state", "created_by", "created_at", "answer", "sources", "reply", "event",
            "out_of_scope",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(OutOfScopeSerializer(allow_null=True))
    def get_out_of_scope(self, episode: Episode) -> dict | None:
        """A ticket turned away as outside what the team can do (status ``out_of_scope``): the check's
        verdict; null for a ticket the team played."""
        return out_of_scope_of(episode)

    @extend_schema_field(NULLABLE_OBJECT)
    def get_event(self, episode: Episode) -> dict | None:
        """A conversation turn's event (its `kind`: what the turn came to; "accepted": the customer's "That
        solved it"), as the conversation's turns carry it; null for a ticket."""
        return (episode.result or {}).get("event") if episode.conversation_id else None

    @extend_schema_field(NULLABLE_OBJECT)
    def get_reply(self, episode: Episode) -> dict | None:
        """The written reply: text, backend, tokens, latency, cost, first fault (parts: the detail view)."""
        reply = episode.result.get("reply")
        if not reply:
            return None
        keys = ("text", "backend", "model", "usage", "cost", "latency_ms", "fallback", "faults")
        if isinstance(reply, str):  # a conversation's turn keeps the words said (deployments.conversations)
            return {k: None for k in keys} | {"text": reply, "backend": "template"}
        return {k: reply.get(k) for k in keys}

    def get_answer(self, episode: Episode) -> list[str] | None:
        """Customer service: the intents the team's approved draft answers."""
        return (episode.result.get("info") or {}).get("predicted_intents")

    def get_sources(self, episode: Episode) -> dict:
        return episode.result.get("sources") or {}


class DeciderSerializer(serializers.Serializer):
    """One deciding decision of an episode (an agent's non-idle action, `episode_review`)."""

    id = serializers.IntegerField()
    step = serializers.IntegerField()
    agent = serializers.CharField()
    action = serializers.CharField()
    source = serializers.CharField()
    confidence = serializers.FloatField(allow_null=True)


class EpisodeReviewRowSerializer(EpisodeSerializer):
    """An episode as the review list shows it: the ticket, the reply, who decided and how sure (see
    `mase_web.deployments.episode_review`); the steps come with the detail."""

    decided_by = DeciderSerializer(source="deciding_steps", many=True, read_only=True)
    decided_source = serializers.SerializerMethodField()
    confidence = serializers.FloatField(read_only=True, allow_null=True)
    decision_count = serializers.IntegerField(read_only=True, help_text="its agents' decisions, all steps")
    step_count = serializers.IntegerField(read_only=True, help_text="its steps (rounds of decisions)")
    review_status = serializers.SerializerMethodField()
    review_reason = serializers.SerializerMethodField()

    class Meta(EpisodeSerializer.Meta):
        fields = [
            *EpisodeSerializer.Meta.fields, "decided_by", "decided_source", "confidence", "decision_count", "step_count",
            "review_status", "review_reason",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(serializers.ChoiceField(choices=["model", "fallback", "half_open"], allow_null=True))
    def get_decided_source(self, episode: Episode) -> str | None:
        return decided_source(episode.deciding_steps)

    @extend_schema_field(serializers.ChoiceField(choices=DecisionStep.Review.choices))
    def get_review_status(self, episode: Episode) -> str:
        return review_status_of(episode)

    @extend_schema_field(
        serializers.CharField(
            help_text='why it got its review status, as the reviewer wrote it ("" when none given)'
        )
    )
    def get_review_reason(self, episode: Episode) -> str:
        return review_reason_of(episode)


class DecisionStepSerializer(serializers.ModelSerializer):
    observation = serializers.SerializerMethodField()
    reviewed_by = serializers.CharField(
        source="reviewed_by.username", read_only=True, allow_null=True, default=None
    )

    class Meta:
        model = DecisionStep
        fields = [
            "id", "episode", "step", "agent", "observation", "action", "action_index", "source", "confidence",
            "reason", "messages", "latency_ms", "reward", "breaker_state", "fault", "created_at",
            "review_status", "review_reason", "reviewed_by", "reviewed_at",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.ANY)
    def get_observation(self, step: DecisionStep):
        from mase_web.deployments.review import parsed_observation

        return parsed_observation(step.observation)


class EpisodeDetailSerializer(EpisodeSerializer):
    steps = DecisionStepSerializer(many=True, read_only=True)
    result = serializers.JSONField(read_only=True)
    agents = serializers.SerializerMethodField()

    class Meta(EpisodeSerializer.Meta):
        fields = [*EpisodeSerializer.Meta.fields, "result", "agents", "steps"]
        read_only_fields = fields

    def get_agents(self, episode: Episode) -> list[str]:
        return [a.get("id") for a in episode.deployment.spec.get("agents") or []]


class TransitionSerializer(serializers.ModelSerializer):
    actor = serializers.CharField(source="actor.username", read_only=True, allow_null=True, default=None)

    class Meta:
        model = BreakerTransition
        fields = [
            "id",
            "deployment",
            "from_state",
            "to_state",
            "reason",
            "detail",
            "actor",
            "why",
            "created_at",
        ]
        read_only_fields = fields


class AlertSerializer(serializers.ModelSerializer):
    class Meta:
        model = Alert
        fields = ["id", "deployment", "level", "name", "detail", "transition", "created_at"]
        read_only_fields = fields


class BatchJobSerializer(serializers.ModelSerializer):
    score = serializers.SerializerMethodField()
    writing = serializers.SerializerMethodField()

    class Meta:
        model = BatchJob
        fields = [
            "id", "deployment", "state", "total", "done", "error", "created_at", "finished_at", "score", "writing",
        ]  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(NULLABLE_OBJECT)
    def get_writing(self, batch: BatchJob) -> dict | None:
        """The replies' cost, tokens, latency p50/p95, fallback share and faults (null before any reply)."""
        from mase_web.deployments.writing import batch_writing

        return batch_writing(batch)

    @extend_schema_field(NULLABLE_OBJECT)
    def get_score(self, batch: BatchJob) -> dict | None:
        """Exact match and per-intent figures when the batch's tickets carry intents (else null)."""
        from mase_web.deployments.batch_score import batch_score

        return batch_score(batch)
