"""Pages carry a Content-Security-Policy that their own markup satisfies."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

pytestmark = pytest.mark.django_db


def directives(response) -> dict[str, str]:
    policy = response["Content-Security-Policy"]
    return {part.split()[0]: part.strip() for part in policy.split(";")}


def inline_scripts(html: str) -> list[str]:
    """<script> tags that would execute inline code (data blocks and src= scripts are fine)."""
    tags = re.findall(r"<script\b[^>]*>", html)
    return [tag for tag in tags if "src=" not in tag and 'type="application/json"' not in tag]


def test_app_page_policy_allows_only_its_own_scripts_and_websocket():
    client = Client()
    client.force_login(get_user_model().objects.create_user("csp-viewer"))
    response = client.get("/")  # the home page mounts the bundle for every signed-in user
    assert response.status_code == 200
    policy = directives(response)
    assert policy["script-src"].startswith("script-src 'self' 'nonce-")
    assert "unsafe" not in policy["script-src"] and "unsafe" not in policy["style-src"]
    assert policy["connect-src"] == "connect-src 'self' ws://testserver"
    assert (
        policy["object-src"] == "object-src 'none'" and policy["frame-ancestors"] == "frame-ancestors 'none'"
    )
    html = response.content.decode()
    assert inline_scripts(html) == []
    assert "/static/dist/assets/main.js" in html
    nonce = re.search(r"'nonce-([^']+)'", policy["style-src"]).group(1)
    styles = re.findall(r"<style\b[^>]*>", html)
    assert styles and all(f'nonce="{nonce}"' in tag for tag in styles)  # Plotly's sheet, allowed


def test_style_attributes_are_allowed_only_by_the_hashes_of_plotlys_two():
    policy = directives(Client().get("/login/"))["style-src-attr"].split()
    assert policy[:2] == ["style-src-attr", "'unsafe-hashes'"]
    hashes = policy[2:]
    assert len(hashes) == 2 and all(h.startswith("'sha256-") for h in hashes)
    assert "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='" in hashes  # the empty style
    assert "'unsafe-inline'" not in policy


def test_each_response_gets_its_own_nonce_and_https_gets_wss():
    first, second = Client().get("/login/"), Client().get("/login/", secure=True)
    assert directives(first)["script-src"] != directives(second)["script-src"]
    assert directives(second)["connect-src"] == "connect-src 'self' wss://testserver"


def test_api_docs_load_from_our_origin_with_the_nonce():
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"]).group(1)
    assert f'<style nonce="{nonce}">' in html
    assert inline_scripts(html) == []
    sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html)
    assert sources and all(src.startswith("/") for src in sources), sources  # no CDN
    script = Client().get("/api/docs/?script=")
    assert script.status_code == 200 and "SwaggerUIBundle" in script.content.decode()
