"""Content-Security-Policy for every response: code and styles only from this origin.

The React bundle is a file under /static/, so pages need no inline script. A template that must
inline a <script> or <style> marks it with `nonce="{{ request.csp_nonce }}"` (a fresh value per request).
"""

from __future__ import annotations

import base64
import hashlib
import secrets

from django.core.exceptions import DisallowedHost

# The only two style *attributes* pages may carry, each allowed by its hash alone ('unsafe-hashes' covers
# attributes; nothing else inline is). Plotly writes them with setAttribute, which the policy otherwise
# blocks: an empty style on colour-bar rectangles, and the pixelated-rendering style it tries on an
# image to learn whether the browser can draw a heat map's cells sharp (and then draws them with it).
PLOTLY_STYLE_ATTRIBUTES = (
    "",
    "".join(
        f"image-rendering: {value}; "
        for value in (
            "optimizeSpeed",
            "-moz-crisp-edges",
            "-o-crisp-edges",
            "-webkit-optimize-contrast",
            "optimize-contrast",
            "crisp-edges",
            "pixelated",
        )
    ),
)


def _sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


STYLE_ATTRIBUTE_SOURCES = " ".join(_sha256_source(text) for text in PLOTLY_STYLE_ATTRIBUTES)


def content_security_policy(request) -> str:
    """The policy for `request`: 'self' everywhere, plus this host's WebSocket origin for live updates."""
    nonce = getattr(request, "csp_nonce", "")
    nonce_source = f" 'nonce-{nonce}'" if nonce else ""
    connect = "'self'"
    try:
        host = request.get_host()
    except DisallowedHost:
        host = ""  # the response is the 400 for that host; it loads nothing anyway
    if host:
        # Browsers that predate CSP level 3 do not let 'self' cover ws:/wss:, so name the socket origin.
        connect += f" {'wss' if request.is_secure() else 'ws'}://{host}"
    directives = [
        "default-src 'self'",
        f"script-src 'self'{nonce_source}",
        f"style-src 'self'{nonce_source}",
        f"style-src-attr 'unsafe-hashes' {STYLE_ATTRIBUTE_SOURCES}",
        # React, Plotly and Swagger UI set styles from code (CSSOM), which the policy allows.
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        f"connect-src {connect}",
        "worker-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
    return "; ".join(directives)


class ContentSecurityPolicyMiddleware:
    """Give each request a nonce (`request.csp_nonce`) and send the policy on its response."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.csp_nonce = secrets.token_urlsafe(16)
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = content_security_policy(request)
        return response
