"""A deployment's share of explored reply styles: ``GET/POST /api/deployments/<id>/style-explore/``.

That share of its replies is written in a style other than its writer's choice and marked ``explored``, so
that annotators' ratings contrast styles (decision 0035). GET (anyone who sees the deployment):
``{"style_explore"}``. POST ``{"style_explore": 0.1}`` (product managers and admins, who may deploy; others
403, a deployment outside the caller's projects 404, a share outside [0, `MAX_EXPLORE`] 400 on
``style_explore``). Every process's runtime takes the stored share on its next ticket (`runtimes.runtime_for`).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.deployments.evolution_api import _deployment
from training.reply_writer import MAX_EXPLORE

# said in the share the API takes and in the percent the deployment page asks for
OUT_OF_BOUNDS = f"a share from 0 to {MAX_EXPLORE} of replies (0 to {MAX_EXPLORE * 100:g} percent)"


class StyleExploreSerializer(serializers.Serializer):
    style_explore = serializers.FloatField(
        min_value=0.0,
        max_value=MAX_EXPLORE,
        error_messages={"min_value": OUT_OF_BOUNDS, "max_value": OUT_OF_BOUNDS},
        help_text=f"share of replies written in another style, marked explored (0 to {MAX_EXPLORE})",
    )


class StyleExploreView(APIView):
    """The share of replies written in another style for ratings to contrast; POST changes it."""

    @extend_schema(responses={200: StyleExploreSerializer})
    def get(self, request, pk: int):
        return Response({"style_explore": _deployment(request.user, pk).style_explore})

    @extend_schema(request=StyleExploreSerializer, responses={200: StyleExploreSerializer})
    def post(self, request, pk: int):
        deployment = _deployment(request.user, pk, write=True)  # product managers and admins
        body = StyleExploreSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        deployment.style_explore = body.validated_data["style_explore"]
        deployment.save(update_fields=["style_explore"])
        return Response({"style_explore": deployment.style_explore})
