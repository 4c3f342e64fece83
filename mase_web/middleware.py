"""Query parameters holding text no database can take (NUL characters) are refused before any view runs."""

from __future__ import annotations

from django.http import HttpResponseBadRequest, JsonResponse

from mase_web.api_parsers import escape, text_problem


class RefuseUnstorableQueryMiddleware:
    """A 400 naming the parameter, in the API's error shape under /api/; otherwise the view would hand the
    text to a query, which PostgreSQL refuses with an error (a 500)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        problems: dict[str, list[str]] = {}
        for key, values in request.GET.lists():
            # Django decodes the query string with errors="replace": only NULs survive, in names or values.
            problem = text_problem(key) or next((p for v in values if (p := text_problem(v))), None)
            if problem:
                problems[escape(key)] = [problem]
        if not problems:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return JsonResponse({"detail": "Invalid query parameters.", "errors": problems}, status=400)
        return HttpResponseBadRequest(
            "; ".join(f"{k}: {v[0]}" for k, v in problems.items()), content_type="text/plain"
        )
