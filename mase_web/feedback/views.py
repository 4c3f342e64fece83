"""Pages of human feedback, served from templates/app.html (the bundle mounts by `page`)."""

from __future__ import annotations

from django.shortcuts import render

from mase_web.core.facade import section_page


@section_page("annotate")
def annotate(request):
    return render(request, "app.html", {"page": "annotate", "title": "Annotate · MASE", "page_data": {}})


@section_page("feedback")
def feedback_manage(request):
    return render(request, "app.html", {"page": "feedback", "title": "Feedback · MASE", "page_data": {}})
