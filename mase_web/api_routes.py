"""The API's routers: an object's id in a URL is digits, or the URL matches nothing (a 404 in the API's
error shape).

DRF's routers match any path segment as an id, so "/api/decisions/abc/review/" reached the view, and a
view that filtered by that id raised ValueError (a 500). Matching digits here settles it for every viewset
once; a viewset that looks objects up by something else declares its own ``lookup_value_regex``.
"""

from __future__ import annotations

from rest_framework.routers import DefaultRouter, SimpleRouter

ID_PATTERN = "[0-9]+"


class _NumericIds:
    def get_lookup_regex(self, viewset, lookup_prefix: str = "") -> str:
        kwarg = getattr(viewset, "lookup_url_kwarg", None) or getattr(viewset, "lookup_field", "pk")
        value = getattr(viewset, "lookup_value_regex", ID_PATTERN)
        return f"(?P<{lookup_prefix}{kwarg}>{value})"


class IdRouter(_NumericIds, DefaultRouter):
    """DefaultRouter whose object routes match numeric ids only."""


class SimpleIdRouter(_NumericIds, SimpleRouter):
    """SimpleRouter (no API root view) whose object routes match numeric ids only."""
