"""One JSON error shape for every API error: {"detail": str, "errors": {field_path: [messages]}}."""

from __future__ import annotations

from django.http import JsonResponse
from django.views import defaults
from rest_framework.views import exception_handler


def _flatten(data, prefix: str = "") -> dict[str, list[str]]:
    if isinstance(data, dict):
        out: dict[str, list[str]] = {}
        for key, value in data.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            out.update(_flatten(value, path))
        return out
    if isinstance(data, list) and data and all(isinstance(item, (dict, list)) for item in data):
        out = {}
        for index, item in enumerate(data):
            out.update(_flatten(item, f"{prefix}[{index}]"))
        return out
    messages = data if isinstance(data, list) else [data]
    return {prefix or "non_field_errors": [str(m) for m in messages]}


def json_exception_handler(exc, context):
    response = exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    if isinstance(data, dict) and set(data) == {"detail"}:
        response.data = {"detail": str(data["detail"]), "errors": {}}
    else:
        errors = _flatten(data)
        response.data = {"detail": "Invalid input.", "errors": errors}
    return response


def not_found(request, exception=None):
    """Django's 404 (no URL matched, e.g. /api/workflows/abc/): the error shape under /api/, a page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found.", "errors": {}}, status=404)
    return defaults.page_not_found(request, exception)
