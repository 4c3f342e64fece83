"""Accepting a proposed intent: the product manager names it (the proposal's words as a start), says what it
means and, optionally, which agent owns it; it is put on the canvas of the deployment's design (its
workflow's draft, or a new workflow made from the deployment's spec) for review in the designer, never
published or trained by itself. Its tickets are then labelled in review or the annotation queue, and the
next generation learns it."""

from __future__ import annotations

import re

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.accounts.facade import can
from mase_web.deployments.catalogue import intent_catalogue, owner_problem
from mase_web.deployments.evolution_api import _deployment
from mase_web.workflows.facade import draft_with_intent

NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
REFUSED = "only product managers and admins of this project may change its design"


class AcceptProposalSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=40, help_text="snake_case, e.g. double_charge")
    description = serializers.CharField(max_length=500, help_text="what a ticket of it asks for")
    owner = serializers.CharField(
        required=False, allow_blank=True, max_length=100, help_text="the agent of the team given it"
    )

    def validate_name(self, name: str) -> str:
        if not NAME.match(name):
            raise serializers.ValidationError("lower-case letters, digits and _ (starting with a letter)")
        if name in [i["name"] for i in intent_catalogue(self.context["deployment"].spec or {})]:
            raise serializers.ValidationError(f"{name!r} is in the catalogue already")
        return name

    def validate_owner(self, owner: str) -> str:
        problem = owner and owner_problem(self.context["deployment"].spec or {}, owner)
        if problem:
            raise serializers.ValidationError(problem)
        return owner


class AcceptedSerializer(serializers.Serializer):
    workflow = serializers.IntegerField()
    designer = serializers.CharField(help_text="the designer page of the draft that holds the intent")
    intents = serializers.ListField(child=serializers.CharField())


class AcceptProposalView(APIView):
    @extend_schema(request=AcceptProposalSerializer, responses={201: AcceptedSerializer})
    def post(self, request, pk: int):
        """Put a proposed intent on the canvas of the deployment's design (its draft; nothing is trained)."""
        deployment = _deployment(request.user, pk)
        if not can(request.user, "edit_workflow", deployment.project_id):
            raise PermissionDenied(REFUSED)
        body = AcceptProposalSerializer(data=request.data, context={"deployment": deployment})
        body.is_valid(raise_exception=True)
        data = body.validated_data
        intent = {
            "name": data["name"],
            "description": data["description"],
            "catalogue": intent_catalogue(deployment.spec or {}),
        }
        workflow = draft_with_intent(
            deployment.project_id, deployment.workflow_id, deployment.spec or {}, deployment.name,
            intent, data.get("owner") or "", request.user,
        )  # fmt: skip
        if deployment.workflow_id != workflow.pk:
            # the new draft is the deployment's design: labels may name the intent, the next generation learns it
            deployment.workflow = workflow
            deployment.save(update_fields=["workflow"])
        names = [i["name"] for i in intent_catalogue(workflow.spec)]
        answer = {"workflow": workflow.pk, "designer": f"/workflows/{workflow.pk}/", "intents": names}
        return Response(answer, status=status.HTTP_201_CREATED)
