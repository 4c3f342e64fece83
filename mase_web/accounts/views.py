"""The project members page, served from templates/app.html (the bundle mounts by `page`)."""

from __future__ import annotations

from django.shortcuts import render

from mase_web.core.facade import section_page


@section_page("members")
def members(request):
    return render(request, "app.html", {"page": "members", "title": "Members · MASE", "page_data": {}})
