"""An operator takes an agent of a deployed large team offline, or brings it back:
``GET/POST /api/deployments/<id>/roster/``.

GET (anyone who sees the deployment): the team by groups, who is offline now, and the latest switches (who,
when, why). POST ``{"agent", "online", "reason"?}`` (operators and admins; others 403, a deployment outside the
caller's projects 404, an agent the team does not have 400 on ``agent``): recorded as an `AgentSwitch`, kept on
the deployment's row (every process's runtime reads it before each group of requests), applied at once to the
runtime of this process — the streams in flight hand the agent's tasks over before their next step
(`serving.roster`) — and announced on the deployment's stream as a ``roster`` event.
"""

from __future__ import annotations

import re
from typing import Any

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView

from agents.envs import env_class
from mase_web.accounts.facade import can, projects_where
from mase_web.deployments import breaker_store, live, runtimes
from mase_web.deployments.models import AgentSwitch, Deployment

SHOWN_SWITCHES = 50


def roster_groups(spec: dict) -> list[dict[str, Any]] | None:
    """The team's agents by group (``[{"id", "members"}]``, the spec's agents being the groups); None when its
    environment has no agents an operator can take offline."""
    environment = spec.get("environment") or {}
    try:
        cls = env_class(str(environment.get("name")))
    except Exception:  # noqa: BLE001 - an unknown or unavailable environment: nothing to switch
        return None
    if not callable(getattr(cls, "set_agent_online", None)) or not hasattr(cls, "member_ids"):
        return None
    members = cls.member_ids(environment.get("params") or {})
    ids = sorted((str(a.get("id")) for a in spec.get("agents") or []), key=len, reverse=True)
    groups: dict[str, list[str]] = {}
    for member in members:  # the longest group id it belongs to (id, or id_<n>)
        owner = next((g for g in ids if member == g or re.fullmatch(rf"{re.escape(g)}_\d+", member)), member)
        groups.setdefault(owner, []).append(member)
    return [{"id": g, "members": m} for g, m in groups.items()]


def _switch_row(switch: AgentSwitch) -> dict[str, Any]:
    return {
        "agent": switch.agent,
        "online": switch.online,
        "reason": switch.reason,
        "actor": switch.actor.username if switch.actor else None,
        "created_at": switch.created_at.isoformat(),
    }


def roster_snapshot(deployment: Deployment) -> dict[str, Any]:
    switches = deployment.agent_switches.select_related("actor")[:SHOWN_SWITCHES]
    return {
        "groups": roster_groups(deployment.spec) or [],
        "offline": list(deployment.offline_agents or []),
        "switches": [_switch_row(s) for s in switches],
    }


class SwitchSerializer(serializers.Serializer):
    agent = serializers.CharField(max_length=64, help_text="the member's name, e.g. guides_3")
    online = serializers.BooleanField(help_text="false: take it offline; true: bring it back")
    reason = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")


def _visible(user, pk: int) -> Deployment:
    deployment = Deployment.objects.filter(pk=pk, project__in=projects_where(user, "view_run")).first()
    if deployment is None:
        raise NotFound(f"no deployment {pk} in your projects")
    return deployment


def switch_agent(deployment_id: int, user, agent: str, online: bool, reason: str) -> Deployment:
    """Record the switch on the locked row; once committed, this process's runtime and the page hear it."""
    with breaker_store.locked_deployment(deployment_id) as locked:
        members = [m for g in roster_groups(locked.spec) or [] for m in g["members"]]
        if not members:
            raise ValidationError({"agent": ["this team has no agents an operator can take offline"]})
        if agent not in members:
            shown = ", ".join(members[:8]) + (" …" if len(members) > 8 else "")
            raise ValidationError({"agent": [f"no agent {agent!r} in this team; its agents: {shown}"]})
        offline = set(locked.offline_agents or [])
        offline = offline - {agent} if online else offline | {agent}
        if len(offline) >= len(members):
            raise ValidationError({"agent": ["keep at least one agent online"]})
        locked.offline_agents = [m for m in members if m in offline]
        locked.save(update_fields=["offline_agents"])
        switch = AgentSwitch.objects.create(
            deployment=locked, agent=agent, online=online, reason=reason, actor=user
        )
        now_offline, row = list(locked.offline_agents), _switch_row(switch)

    def announce() -> None:
        runtime = runtimes.cached_runtime(deployment_id)
        if runtime is not None:
            runtime.roster.set(now_offline)
        live.publish(deployment_id, "roster", offline=now_offline, switch=row)

    transaction.on_commit(announce)
    return locked


class RosterView(APIView):
    """The team by groups, who is offline, the latest switches; POST takes an agent offline or brings it back."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, pk: int):
        return Response(roster_snapshot(_visible(request.user, pk)))

    @extend_schema(request=SwitchSerializer, responses={200: OpenApiTypes.OBJECT})
    def post(self, request, pk: int):
        deployment = _visible(request.user, pk)
        if not can(request.user, "control_breaker", deployment.project_id):
            raise PermissionDenied("only operators and admins of this project may take agents offline")
        body = SwitchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        locked = switch_agent(deployment.pk, request.user, data["agent"], data["online"], data["reason"])
        return Response(roster_snapshot(locked))
