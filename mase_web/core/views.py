"""Pages served from templates/ that mount the React bundle, and the health endpoint."""

from __future__ import annotations

import redis
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db import connection
from django.shortcuts import render
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView


@login_required
def home(request):
    return render(request, "app.html", {"page": "home", "title": "MASE"})


@login_required
def runs(request):
    return render(request, "app.html", {"page": "runs", "title": "Runs · MASE"})


@login_required
def run_detail(request, run_id: int):
    return render(
        request, "app.html", {"page": "run", "title": f"Run {run_id} · MASE", "page_data": {"run": run_id}}
    )


@login_required
def run_compare(request):
    return render(request, "app.html", {"page": "compare", "title": "Compare runs · MASE"})


def _check(fn) -> str:
    try:
        fn()
        return "ok"
    except Exception as exc:  # a health endpoint reports failures instead of raising them
        return f"error: {exc.__class__.__name__}: {exc}"


class HealthView(APIView):
    """Liveness of the database and Redis (for load balancers and docker health checks)."""

    permission_classes = [AllowAny]
    authentication_classes: list = []

    def get(self, request):
        checks = {
            "database": _check(lambda: connection.cursor().execute("SELECT 1")),
            "redis": _check(lambda: redis.Redis.from_url(settings.REDIS.url, socket_timeout=2).ping()),
        }
        healthy = all(v == "ok" for v in checks.values())
        return Response({"status": "ok" if healthy else "degraded", **checks}, status=200 if healthy else 503)
