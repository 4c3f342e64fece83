"""A large team's console: ``POST /api/deployments/<id>/tasks/`` plays a stream of tasks through the deployed
team (``{"count"?, "seed"?}``; product managers, operators and admins, as tickets are). Each task is allocated
as the spec says — the trained bidders' bids under ``allocation: auction``, else the declared allocation — with
the agents an operator took offline left out; each step's allocation and the team's load are streamed
(``allocation`` events), every agent's decision is stored with the bids behind it (``reason.allocation``), and
the answer is the stored episode and the stream's figures (the decisions are in the decision log)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.envs import env_class, episode_limit
from mase_web.accounts.facade import can, projects_where
from mase_web.deployments.inference import TicketRequest, answer_ticket
from mase_web.deployments.models import Deployment
from mase_web.runs.facade import shown_text

DEFAULT_COUNT = 50


class StreamSerializer(serializers.Serializer):
    count = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text="tasks in the stream (default 50, at most the team's max_steps)",
    )
    seed = serializers.IntegerField(
        min_value=0, required=False, help_text="the stream's seed (default: random)"
    )


def stream_limit(spec: dict) -> int | None:
    """The most tasks one stream may hold (the environment's ``max_steps``); None: the team takes no stream."""
    environment = spec.get("environment") or {}
    try:
        cls = env_class(str(environment.get("name")))
    except Exception:  # noqa: BLE001 - an unknown or unavailable environment takes no stream
        return None
    if not callable(getattr(cls, "set_agent_online", None)):
        return None
    return episode_limit(cls, environment.get("params") or {})


class TaskStreamView(APIView):
    @extend_schema(request=StreamSerializer, responses={201: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        user = request.user
        deployment = Deployment.objects.filter(pk=pk, project__in=projects_where(user, "view_run")).first()
        if deployment is None:
            raise NotFound(f"no deployment {pk} in your projects")
        if not (
            can(user, "deploy", deployment.project_id) or can(user, "control_breaker", deployment.project_id)
        ):
            raise PermissionDenied("only product managers, operators and admins may send tasks")
        if deployment.status == Deployment.Status.STOPPED:
            raise ValidationError({"status": [f"deployment {pk} is stopped; resume it before sending tasks"]})
        limit = stream_limit(deployment.spec)
        if limit is None:
            raise ValidationError({"count": ["this team takes tickets, not a stream of tasks"]})
        body = StreamSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        count = body.validated_data.get("count", min(DEFAULT_COUNT, limit))
        if count > limit:
            raise ValidationError({"count": [f"at most {limit} tasks a stream (the team's max_steps)"]})
        seed = body.validated_data.get("seed")
        task = TicketRequest(f"a stream of {count} tasks", options={"tasks": count}, seed=seed)
        try:
            answer = answer_ticket(deployment, task, "api", user)
        except ValueError as exc:  # the team cannot be loaded (a checkpoint removed or corrupted)
            raise ValidationError({"checkpoint": [shown_text(str(exc))]}) from None
        result = {k: v for k, v in answer.result.items() if k != "decisions"}
        return Response({"episode": answer.episode_data, "result": result}, status=status.HTTP_201_CREATED)
