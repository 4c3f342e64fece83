"""The site's sections, which of them a user's roles open, and the real 403/404 pages.

A section is shown in the navigation, and its list page opens, when the user may perform its action in
at least one project (accounts.permissions decides). Computed once per request and cached on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse
from django.utils.functional import SimpleLazyObject

from mase_web.accounts.facade import actions_anywhere


@dataclass(frozen=True)
class Section:
    key: str
    label: str
    url_name: str
    action: str  # allowed in some project: the section is shown and its list page opens


SECTIONS = (
    Section("workflows", "Workflows", "workflows", "view_workflow"),
    Section("runs", "Runs", "runs", "view_run"),
    Section("deployments", "Deployments", "deployments", "view_run"),
    Section("datasets", "Datasets", "datasets", "view_dataset"),
    Section("review", "Review", "review", "review_logs"),
    Section("annotate", "Annotate", "annotate", "give_feedback"),
    Section("feedback", "Feedback", "feedback", "manage_feedback"),
    Section("members", "Members", "members", "manage_members"),
    Section("api", "API", "api-docs", "view_run"),
)
BY_KEY = {section.key: section for section in SECTIONS}


@dataclass(frozen=True)
class NavLink:
    label: str
    url: str
    current: bool


def open_sections(request) -> frozenset[str]:
    """The keys of the sections `request.user` may open (cached on the request)."""
    cached = getattr(request, "_mase_open_sections", None)
    if cached is None:
        actions = actions_anywhere(request.user)
        cached = frozenset(s.key for s in SECTIONS if s.action in actions)
        request._mase_open_sections = cached
    return cached


def nav_links(request) -> list[NavLink]:
    allowed = open_sections(request)
    links = []
    for section in SECTIONS:
        if section.key in allowed:
            url = reverse(section.url_name)
            links.append(NavLink(section.label, url, request.path.startswith(url)))
    return links


def navigation(request) -> dict:
    """Context processor: `nav_links`, the sections this user's roles open (queried only if rendered)."""
    return {"nav_links": SimpleLazyObject(lambda: nav_links(request))}


def error_page(request, status: int, message: str = ""):
    """The site's 403 or 404 page (templates/403.html, 404.html), whatever DEBUG says."""
    return render(request, f"{status}.html", {"message": message}, status=status)


def not_found(request, what: str):
    return error_page(
        request, 404, f"There is no {what} here, or it belongs to a project you are not part of."
    )


def section_page(key: str):
    """Decorate a section's page view: sign-in required, and a 403 page for roles that do not open it."""
    section = BY_KEY[key]

    def decorate(view):
        @wraps(view)
        def guarded(request, *args, **kwargs):
            if key not in open_sections(request):
                return error_page(
                    request, 403, f"{section.label} is not part of your role in any of your projects."
                )
            return view(request, *args, **kwargs)

        return login_required(guarded)

    return decorate
