from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.realtime.tasks import ping_user


class PingSerializer(serializers.Serializer):
    note = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class PingView(APIView):
    """Ask a worker to send the caller a notification over the WebSocket (a health check of the
    browser → API → Celery → channel layer → WebSocket path)."""

    @extend_schema(
        request=PingSerializer,
        responses={202: inline_serializer("PingQueued", {"task_id": serializers.CharField()})},
    )
    def post(self, request: Request) -> Response:
        data = PingSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = ping_user.delay(request.user.id, data.validated_data["note"])
        return Response({"task_id": result.id}, status=status.HTTP_202_ACCEPTED)
