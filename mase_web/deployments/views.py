"""Pages of deployments and operator review, served from templates/app.html (the bundle mounts by `page`)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def deployment_list(request):
    return render(
        request, "app.html", {"page": "deployments", "title": "Deployments · MASE", "page_data": {}}
    )


@login_required
def deployment_detail(request, pk: int):
    data = {"deployment": pk}
    return render(
        request, "app.html", {"page": "deployment", "title": f"Deployment {pk} · MASE", "page_data": data}
    )


@login_required
def review(request):
    return render(request, "app.html", {"page": "review", "title": "Decision review · MASE", "page_data": {}})
