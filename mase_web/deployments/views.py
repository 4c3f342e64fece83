"""Pages of deployments and operator review, served from templates/app.html (the bundle mounts by `page`)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from mase_web.accounts.facade import projects_where
from mase_web.core.facade import not_found, section_page
from mase_web.deployments.models import Deployment


@section_page("deployments")
def deployment_list(request):
    return render(
        request, "app.html", {"page": "deployments", "title": "Deployments · MASE", "page_data": {}}
    )


@login_required
def deployment_detail(request, pk: int):
    if not Deployment.objects.filter(pk=pk, project__in=projects_where(request.user, "view_run")).exists():
        return not_found(request, "deployment")
    data = {"deployment": pk}
    return render(
        request, "app.html", {"page": "deployment", "title": f"Deployment {pk} · MASE", "page_data": data}
    )


@section_page("review")
def review(request):
    return render(request, "app.html", {"page": "review", "title": "Decision review · MASE", "page_data": {}})
