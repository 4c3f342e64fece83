"""The OpenAPI schema documents every operation's errors once, here, instead of in every view.

Every DRF error leaves the API in one shape (``mase_web.api_errors``): ``{"detail": str, "errors":
{field_path: [messages]}}``. `ErrorDocumentingAutoSchema` (the project's DEFAULT_SCHEMA_CLASS) adds that
shape, as the `ApiError` component, to each operation for the error statuses it can answer:

- 400 where the request carries input (a body or query parameters) that can be refused, and on every
  write, which the object's state can refuse (cancelling a run that ended, training on a pairwise queue);
- 403 where authentication or permissions can refuse (every view but those open to all without sign-in);
- 404 where the path names an object, or a page number can run past the last page.

Statuses a view documents itself are left as the view describes them.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import AllowAny


class ApiErrorSerializer(serializers.Serializer):
    """The body of every API error (see mase_web.api_errors)."""

    detail = serializers.CharField(help_text="what went wrong, in one sentence")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="messages per field path (`items[0].snapshot.task`); empty when no field is to blame",
    )


ERROR_DESCRIPTIONS = {
    "400": "The input was refused; `errors` names each field at fault.",
    "403": "Not signed in, or your role in the project does not allow this.",
    "404": "No such object among those you may see (or no such page).",
}


class ErrorDocumentingAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, plus the 400/403/404 responses each operation can give."""

    def get_operation(self, path, path_regex, path_prefix, method, registry):
        """The operation as drf-spectacular builds it, with its possible error responses added."""
        operation = super().get_operation(path, path_regex, path_prefix, method, registry)
        if operation is None:
            return None
        responses = operation.setdefault("responses", {})
        for code in self._error_statuses(path, operation):
            if code not in responses:
                error = OpenApiResponse(ApiErrorSerializer, description=ERROR_DESCRIPTIONS[code])
                responses[code] = self._get_response_for_code(error, code)
        return operation

    def _error_statuses(self, path: str, operation: dict) -> list[str]:
        parameters = operation.get("parameters", [])
        codes = []
        has_input = "requestBody" in operation or any(p.get("in") == "query" for p in parameters)
        if has_input or self.method not in ("GET", "HEAD", "OPTIONS"):
            codes.append("400")
        if self._may_refuse_access():
            codes.append("403")
        names_object = any(p.get("in") == "path" for p in parameters) or "{" in path
        if names_object or any(p.get("in") == "query" and p.get("name") == "page" for p in parameters):
            codes.append("404")
        return codes

    def _may_refuse_access(self) -> bool:
        # A view open to all still refuses a bad token header when it authenticates at all.
        if self.view.get_authenticators():
            return True
        return any(not isinstance(p, AllowAny) for p in self.view.get_permissions())
