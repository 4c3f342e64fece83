"""Pages of human feedback, served from templates/app.html (the bundle mounts by `page`)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def annotate(request):
    return render(request, "app.html", {"page": "annotate", "title": "Annotate · MASE", "page_data": {}})


@login_required
def feedback_manage(request):
    return render(request, "app.html", {"page": "feedback", "title": "Feedback · MASE", "page_data": {}})
