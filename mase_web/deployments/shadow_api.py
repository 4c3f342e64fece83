"""REST API of shadow mode (`deployments.shadow`): who may see the deployment reads the agreement and the
disagreements; product managers and admins start and stop a shadow. Other projects' deployments are 404."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.deployments import shadow
from mase_web.deployments.evolution import EvolutionRefused
from mase_web.deployments.evolution_api import _deployment, _refused


class DisagreementSerializer(serializers.Serializer):
    episode = serializers.IntegerField()
    text = serializers.CharField()
    champion = serializers.ListField(child=serializers.CharField())
    shadow = serializers.ListField(child=serializers.CharField())
    at = serializers.DateTimeField()


class ShadowSerializer(serializers.Serializer):
    generation = serializers.IntegerField(allow_null=True, help_text="the generation in shadow, if any")
    tickets = serializers.IntegerField(help_text="live tickets it answered beside the champion")
    agreed = serializers.IntegerField()
    agreement = serializers.FloatField(allow_null=True)
    disagreements = DisagreementSerializer(many=True, help_text="the newest 50, to review")


class ShadowView(APIView):
    @extend_schema(responses={200: ShadowSerializer})
    def get(self, request, pk: int):
        """The shadow's agreement with the champion on live traffic, and the tickets where they differ."""
        return Response(ShadowSerializer(shadow.summary(_deployment(request.user, pk))).data)

    @extend_schema(request=None, responses={200: ShadowSerializer})
    def delete(self, request, pk: int):
        """End the shadow (its generation is a candidate again)."""
        deployment = _deployment(request.user, pk, write=True)
        shadow.stop(deployment)
        return Response(ShadowSerializer(shadow.summary(deployment)).data)


class StartShadowView(APIView):
    @extend_schema(request=None, responses={200: ShadowSerializer})
    def post(self, request, pk: int, number: int):
        """Run this trained candidate in shadow: it answers live tickets silently beside the champion."""
        deployment = _deployment(request.user, pk, write=True)
        generation = deployment.generations.filter(number=number).first()
        if generation is None:
            raise NotFound(f"deployment {pk} has no generation {number}")
        try:
            shadow.start(generation)
        except EvolutionRefused as exc:
            raise _refused(exc) from None
        return Response(ShadowSerializer(shadow.summary(deployment)).data)
