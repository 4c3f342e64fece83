"""REST API of conversations with a conversational team (`deployments.conversations`).

- ``GET /api/deployments/<id>/conversations/``: its conversations, newest first (members who see it);
  ``POST {"text", "source"?}`` opens one with the customer's first message and plays that turn (product
  managers, operators, admins);
- ``GET /api/conversations/?deployment=<id>``: conversations of the deployments you see (the review page);
  ``GET /api/conversations/<id>/``: one, turn by turn (each turn: the customer's message, the decisions
  the team took, the reply and which agent's decision it says);
- ``POST /api/conversations/<id>/turns/ {"text", "accepted"?, "source"?}``: the customer's next message
  (``accepted``: their word on the answer they were given). A conversation that has ended answers 400.

A conversation or deployment outside the caller's projects is a 404; a member who may not send tickets hears
403 before any word about the body; bad input is a 400 naming the field.
"""

from __future__ import annotations

from django.db.models import Prefetch
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied, ValidationError
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.accounts.facade import can, projects_where
from mase_web.api_parsers import LimitedJSONParser
from mase_web.deployments.conversations import (
    ConversationError,
    is_conversational,
    play_turn,
    refuse_if_ended,
)
from mase_web.deployments.models import Conversation, DecisionStep, Deployment, Episode
from mase_web.runs.facade import shown_text

MAX_TEXT = 2000


class TurnRequestSerializer(serializers.Serializer):
    text = serializers.CharField(
        max_length=MAX_TEXT, trim_whitespace=True, allow_blank=True, required=False, default="",
        help_text="What the customer says (may be empty only with `accepted`).",
    )  # fmt: skip
    accepted = serializers.BooleanField(
        required=False, allow_null=True, default=None,
        help_text="The customer's word on the answer they were given: true solved it, false did not "
        "(left out: read from the text).",
    )  # fmt: skip
    source = serializers.ChoiceField(choices=["api", "browser"], default="api")

    def validate(self, data: dict) -> dict:
        if not data["text"] and data["accepted"] is None:
            raise ValidationError({"text": ["write the customer's message (or send accepted: true/false)"]})
        return data


class TurnDecisionSerializer(serializers.ModelSerializer):
    class Meta:
        model = DecisionStep
        fields = ["id", "step", "agent", "action", "source", "confidence", "fault"]
        read_only_fields = fields


class TurnSerializer(serializers.ModelSerializer):
    """One turn: the customer's message, the decisions the team took (idle agents left out), the reply."""

    episode = serializers.IntegerField(source="pk", read_only=True)
    customer = serializers.CharField(source="task_text", read_only=True)
    reply = serializers.SerializerMethodField()
    speaker = serializers.SerializerMethodField()
    event = serializers.SerializerMethodField()
    decisions = TurnDecisionSerializer(source="deciding_steps", many=True, read_only=True)

    class Meta:
        model = Episode
        fields = [
            "turn",
            "episode",
            "customer",
            "reply",
            "speaker",
            "event",
            "decisions",
            "status",
            "created_at",
        ]
        read_only_fields = fields

    def get_reply(self, episode: Episode) -> str:
        return str((episode.result or {}).get("reply") or "")

    def get_speaker(self, episode: Episode) -> str:
        """The agent whose decision the reply says."""
        return str((episode.result or {}).get("speaker") or "team")

    def get_event(self, episode: Episode) -> dict | None:
        """What the turn ended on: question (with its fact), answer, escalated, left, accepted, failed."""
        return (episode.result or {}).get("event")


class ConversationSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )
    awaiting = serializers.SerializerMethodField()
    ended = serializers.SerializerMethodField()
    turn_list = TurnSerializer(source="episodes", many=True, read_only=True)

    class Meta:
        model = Conversation
        fields = [
            "id", "deployment", "status", "ended", "awaiting", "turns", "turn_list", "created_by", "created_at",
            "updated_at",
        ]  # fmt: skip
        read_only_fields = fields

    def get_awaiting(self, conversation: Conversation) -> str | None:
        """What the team waits for: ``answer:<fact>`` (its question), ``feedback`` (its answer), or null."""
        return conversation.state.get("awaiting") if conversation.status == Conversation.Status.OPEN else None

    def get_ended(self, conversation: Conversation) -> bool:
        return conversation.status != Conversation.Status.OPEN


def _with_turns(rows):
    deciding = DecisionStep.objects.exclude(action="wait").order_by("step", "id")
    turns = Episode.objects.order_by("turn", "id").prefetch_related(
        Prefetch("steps", queryset=deciding, to_attr="deciding_steps")
    )
    return rows.select_related("created_by").prefetch_related(Prefetch("episodes", queryset=turns))


def _may_talk(user, project_id: int) -> None:
    if not (can(user, "deploy", project_id) or can(user, "control_breaker", project_id)):
        raise PermissionDenied("only product managers, operators and admins may talk to a deployed team")


def _turn(request, deployment: Deployment, conversation_id: int | None) -> Conversation:
    body = TurnRequestSerializer(data=request.data)
    body.is_valid(raise_exception=True)
    data = body.validated_data
    if deployment.status == Deployment.Status.STOPPED:
        raise ValidationError({"status": [f"deployment {deployment.pk} is stopped; resume it first"]})
    try:
        conversation = play_turn(
            deployment, conversation_id, data["text"], accepted=data["accepted"], user=request.user,
            source=data["source"],
        )  # fmt: skip
    except ConversationError as exc:
        raise ValidationError({exc.field: [str(exc)]}) from None
    except ValueError as exc:  # the team cannot be loaded (a checkpoint removed or corrupted)
        raise ValidationError({"checkpoint": [shown_text(str(exc))]}) from None
    return _with_turns(Conversation.objects.filter(pk=conversation.pk)).get()


class DeploymentConversationsView(APIView):
    """A deployment's conversations (GET) or a new one from the customer's first message (POST)."""

    parser_classes = [LimitedJSONParser]

    def _deployment(self, request, pk: int) -> Deployment:
        rows = Deployment.objects.filter(project__in=projects_where(request.user, "view_run"))
        return get_object_or_404(rows, pk=pk)

    @extend_schema(responses=ConversationSerializer(many=True))
    def get(self, request, pk: int):
        deployment = self._deployment(request, pk)
        rows = _with_turns(deployment.conversations.all())[:100]
        return Response(ConversationSerializer(rows, many=True).data)

    @extend_schema(request=TurnRequestSerializer, responses={201: ConversationSerializer})
    def post(self, request, pk: int):
        deployment = self._deployment(request, pk)
        _may_talk(request.user, deployment.project_id)
        if not is_conversational(deployment):
            raise ValidationError(
                {
                    "deployment": [
                        f"deployment {pk} holds no conversations (its team takes tickets): send a ticket"
                    ]
                }
            )
        conversation = _turn(request, deployment, None)
        return Response(ConversationSerializer(conversation).data, status=status.HTTP_201_CREATED)


class ConversationViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Conversations of the deployments you see; POST .../turns/ plays the customer's next message."""

    serializer_class = ConversationSerializer
    parser_classes = [LimitedJSONParser]
    pagination_class = None

    def get_queryset(self):
        rows = Conversation.objects.filter(
            deployment__project__in=projects_where(self.request.user, "view_run")
        )
        deployment = self.request.query_params.get("deployment") if self.action == "list" else None
        if deployment is not None:
            if not deployment.isdigit():
                raise ValidationError({"deployment": ["a deployment id (digits)"]})
            rows = rows.filter(deployment_id=int(deployment))
        return _with_turns(rows.order_by("-updated_at", "-id"))

    @extend_schema(parameters=[OpenApiParameter("deployment", int, description="deployment id")])
    def list(self, request, *args, **kwargs):
        return Response(ConversationSerializer(self.get_queryset()[:100], many=True).data)

    @extend_schema(request=TurnRequestSerializer, responses={201: ConversationSerializer})
    @action(detail=True, methods=["post"])
    def turns(self, request, pk=None):
        conversation = self.get_object()
        deployment = Deployment.objects.filter(pk=conversation.deployment_id).first()
        if deployment is None:
            raise Http404("No Conversation matches the given query.")
        _may_talk(request.user, deployment.project_id)
        try:
            refuse_if_ended(conversation)  # before reading the message: the clear answer comes first
        except ConversationError as exc:
            raise ValidationError({exc.field: [str(exc)]}) from None
        return Response(ConversationSerializer(_turn(request, deployment, conversation.pk)).data, status=201)
