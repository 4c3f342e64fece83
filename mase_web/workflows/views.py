"""Pages of the designer, served from templates/app.html (the React bundle mounts by `page`)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from mase_web.accounts.facade import can
from mase_web.core.facade import not_found, section_page
from mase_web.workflows.models import Workflow


@section_page("workflows")
def workflow_list(request):
    return render(request, "app.html", {"page": "workflows", "title": "Workflows · MASE", "page_data": {}})


@login_required
def designer(request, pk: int):
    workflow = Workflow.objects.filter(pk=pk).select_related("project").first()
    if workflow is None or not can(request.user, "view_workflow", workflow.project):
        return not_found(request, "workflow")
    data = {
        "workflow_id": workflow.pk,
        "can_edit": can(request.user, "edit_workflow", workflow.project),
        "can_launch": can(request.user, "launch_run", workflow.project),
    }
    return render(
        request, "app.html", {"page": "designer", "title": f"{workflow.name} · MASE", "page_data": data}
    )
