"""A routing deployment's scope gate: ``GET/POST /api/deployments/<id>/scope-gate/``.

With the gate on, a ticket outside the team's intent catalogue is not answered: the reply says so in words
and hands it to a person, and the episode is logged as out of scope (`serving.scope`, decisions 0020 and
0031). It costs some in-scope tickets written unlike the training data (they are handed to a person too),
so each deployment chooses; a new one starts from the site's ``MASE_SCOPE_GATE``.

GET (anyone who sees the deployment): ``{"scope_gate", "routing"}``. POST ``{"scope_gate": true}`` (product
managers and admins, who may deploy; others 403, a deployment outside the caller's projects 404, a team
that does not route tickets 400 on ``scope_gate``). Every process's runtime takes the stored choice on its
next ticket (`runtimes.runtime_for`); turned on, this process builds the gate at once in the background
(`runtimes.warm_soon`), so that the next ticket does not wait for it.
"""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.deployments import runtimes
from mase_web.deployments.evolution_api import _deployment
from mase_web.deployments.models import Deployment


class ScopeGateSerializer(serializers.Serializer):
    scope_gate = serializers.BooleanField(
        help_text="hand tickets outside the intent catalogue to a person instead of answering them"
    )
    routing = serializers.BooleanField(
        read_only=True, help_text="whether the team routes tickets by intents (the gate applies only then)"
    )


def _shown(deployment: Deployment) -> dict:
    return {"scope_gate": deployment.scope_gate, "routing": deployment.routes_tickets}


class ScopeGateView(APIView):
    """Whether the team hands tickets outside its catalogue to a person; POST changes it."""

    @extend_schema(responses={200: ScopeGateSerializer})
    def get(self, request, pk: int):
        return Response(_shown(_deployment(request.user, pk)))

    @extend_schema(request=ScopeGateSerializer, responses={200: ScopeGateSerializer})
    def post(self, request, pk: int):
        deployment = _deployment(request.user, pk, write=True)  # product managers and admins
        body = ScopeGateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        if not deployment.routes_tickets:
            raise serializers.ValidationError(
                {
                    "scope_gate": [
                        "this team does not route tickets by intents; the scope gate applies to routing teams"
                    ]
                }
            )
        deployment.scope_gate = body.validated_data["scope_gate"]
        deployment.save(update_fields=["scope_gate"])
        transaction.on_commit(lambda: runtimes.warm_soon(deployment))
        return Response(_shown(deployment))
