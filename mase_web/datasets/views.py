"""Pages of datasets, served from templates/app.html (the bundle mounts by `page`)."""

from __future__ import annotations

from django.shortcuts import render

from mase_web.accounts.facade import projects_where
from mase_web.core.facade import not_found, section_page
from mase_web.datasets.models import Dataset


@section_page("datasets")
def dataset_list(request):
    return render(request, "app.html", {"page": "datasets", "title": "Datasets · MASE", "page_data": {}})


@section_page("datasets")
def dataset_detail(request, pk: int):
    dataset = Dataset.objects.filter(pk=pk, project__in=projects_where(request.user, "view_dataset")).first()
    if dataset is None:
        return not_found(request, "dataset")
    context = {
        "page": "dataset",
        "title": f"{dataset.name} · Datasets · MASE",
        "page_data": {"dataset": dataset.pk},
    }
    return render(request, "app.html", context)
