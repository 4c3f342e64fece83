"""Pages served from templates/ that mount the React bundle, and the health endpoint."""

from __future__ import annotations

import redis
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import FileResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.accounts.facade import can
from mase_web.core.navigation import not_found, section_page
from mase_web.runs.facade import run_project_id

FAVICON = settings.BASE_DIR / "mase_web" / "static" / "favicon.ico"


@login_required
def home(request):
    return render(request, "app.html", {"page": "home", "title": "MASE"})


@section_page("runs")
def runs(request):
    return render(request, "app.html", {"page": "runs", "title": "Runs · MASE"})


@login_required
def run_detail(request, run_id: int):
    project_id = run_project_id(run_id)
    if project_id is None or not can(request.user, "view_run", project_id):
        return not_found(request, "run")
    return render(
        request, "app.html", {"page": "run", "title": f"Run {run_id} · MASE", "page_data": {"run": run_id}}
    )


@section_page("runs")
def run_compare(request):
    return render(request, "app.html", {"page": "compare", "title": "Compare runs · MASE"})


@cache_control(max_age=86400, public=True)
def favicon(request):
    """/favicon.ico, for clients that ask for it without reading the page's <link rel="icon">."""
    return FileResponse(FAVICON.open("rb"), content_type="image/x-icon")


def _check(fn) -> str:
    try:
        fn()
        return "ok"
    except Exception as exc:  # a health endpoint reports failures instead of raising them
        return f"error: {exc.__class__.__name__}: {exc}"


HEALTH = inline_serializer(
    "Health",
    {
        "status": serializers.ChoiceField(choices=["ok", "degraded"]),
        "database": serializers.CharField(help_text="`ok`, or the error"),
        "redis": serializers.CharField(help_text="`ok`, or the error"),
    },
)


class HealthView(APIView):
    """Liveness of the database and Redis (for load balancers and docker health checks)."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    @extend_schema(responses={200: HEALTH, 503: HEALTH})
    def get(self, request):
        checks = {
            "database": _check(lambda: connection.cursor().execute("SELECT 1")),
            "redis": _check(lambda: redis.Redis.from_url(settings.REDIS.url, socket_timeout=2).ping()),
        }
        healthy = all(v == "ok" for v in checks.values())
        return Response({"status": "ok" if healthy else "degraded", **checks}, status=200 if healthy else 503)
