"""A JSON parser that enforces the request-size limit and never lets hostile JSON become a 500.

DRF reads the request stream directly, which bypasses Django's DATA_UPLOAD_MAX_MEMORY_SIZE check,
and the stdlib decoder raises RecursionError (not ValueError) on very deep nesting.
"""

from __future__ import annotations

import json

from django.conf import settings
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import JSONParser


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


class LimitedJSONParser(JSONParser):
    """JSON bodies up to DATA_UPLOAD_MAX_MEMORY_SIZE bytes; errors name the body as their path."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise ValidationError(
                {"body": [f"request body is larger than {limit:,} bytes; send a smaller document"]}
            )
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = raw.decode(encoding)
            return json.loads(text, parse_constant=_refuse_constant)
        except UnicodeDecodeError:
            raise ValidationError({"body": [f"request body is not valid {encoding} text"]}) from None
        except RecursionError:
            raise ValidationError({"body": ["JSON is nested far too deeply"]}) from None
        except ValueError as exc:
            raise ValidationError({"body": [f"malformed JSON: {exc}"]}) from None
