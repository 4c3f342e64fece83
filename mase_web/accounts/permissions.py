"""Who may do what, per project. Every app asks here; none reads memberships itself.

Actions are named in the product's words. A site superuser may do everything; everyone else acts
through their role in the object's project.
"""

from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import SAFE_METHODS, BasePermission

from mase_web.accounts.models import Membership, Project, Role

PM, OP, AN, AD = Role.PRODUCT_MANAGER, Role.OPERATOR, Role.ANNOTATOR, Role.ADMIN

ALLOWED_ROLES: dict[str, frozenset[str]] = {
    "view_project": frozenset({PM, OP, AN, AD}),
    "manage_members": frozenset({AD}),
    "view_workflow": frozenset({PM, OP, AD}),
    "edit_workflow": frozenset({PM, AD}),  # designs, versions, publishing
    "view_run": frozenset({PM, OP, AD}),
    "launch_run": frozenset({PM, AD}),
    "control_run": frozenset({PM, OP, AD}),  # cancel / resume
    "deploy": frozenset({PM, AD}),
    "control_breaker": frozenset({OP, AD}),
    "review_logs": frozenset({OP, AD}),
    "give_feedback": frozenset({AN, AD}),
    "manage_feedback": frozenset({PM, AD}),  # queues, guidelines, reward models
    "view_dataset": frozenset({PM, OP, AN, AD}),  # a project's own data: rows, labels, splits
    "edit_dataset": frozenset({PM, OP, AD}),  # upload, new versions
}


def role_in(user, project: Project | int) -> str | None:
    if not user.is_authenticated:
        return None
    project_id = project.pk if isinstance(project, Project) else project
    return Membership.objects.filter(user=user, project_id=project_id).values_list("role", flat=True).first()


def can(user, action: str, project: Project | int) -> bool:
    """May `user` perform `action` in `project`?"""
    if action not in ALLOWED_ROLES:
        raise KeyError(f"unknown action {action!r}")
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return role_in(user, project) in ALLOWED_ROLES[action]


def refuse_before_body(user, action: str, body, message: str) -> None:
    """403 for a member whose role may not do ``action`` in the project a request ``body`` names (its
    ``project``), before the body is judged: a list of what is wrong with a request they may not make anyway
    helps nobody. A project the caller is not in is left to the body's own check ("not in your projects"),
    so nothing here tells whether it exists."""
    try:
        project_id = int(body.get("project"))
    except (AttributeError, TypeError, ValueError):
        return
    if user.is_superuser:
        return
    role = role_in(user, project_id)
    if role is not None and role not in ALLOWED_ROLES[action]:
        raise PermissionDenied(message)


def role_column(user, project_field: str = "project_id") -> Subquery:
    """`user`'s role in each row's project (null: none) as a column to annotate: a hot path reads an object
    and the caller's role in one query, then asks `role_allows` instead of `can` (no query per check)."""
    memberships = Membership.objects.filter(user_id=user.pk, project_id=OuterRef(project_field))
    return Subquery(memberships.values("role")[:1])


def role_allows(user, action: str, role: str | None) -> bool:
    """`can` for a role already read (`role_column`): the same answer, without a query."""
    if action not in ALLOWED_ROLES:
        raise KeyError(f"unknown action {action!r}")
    if not user.is_authenticated:
        return False
    return user.is_superuser or role in ALLOWED_ROLES[action]


def projects_where(user, action: str) -> QuerySet[Project]:
    """The projects in which `user` may perform `action` (for filtering list endpoints)."""
    if not user.is_authenticated:
        return Project.objects.none()
    if user.is_superuser:
        return Project.objects.all()
    roles = ALLOWED_ROLES[action]
    return Project.objects.filter(memberships__user=user, memberships__role__in=roles).distinct()


def actions_anywhere(user) -> frozenset[str]:
    """The actions `user` may perform in at least one project (one query; for navigation and page guards)."""
    if not user.is_authenticated:
        return frozenset()
    if user.is_superuser:
        return frozenset(ALLOWED_ROLES)
    roles = set(Membership.objects.filter(user=user).values_list("role", flat=True))
    return frozenset(action for action, allowed in ALLOWED_ROLES.items() if roles & allowed)


class ProjectActionPermission(BasePermission):
    """DRF object permission: `view.read_action` for safe methods, `view.write_action` otherwise.

    The view's objects must expose `project_id` (directly or via `get_project_id(obj)` on the view).
    """

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request, view, obj) -> bool:
        project_id = view.get_project_id(obj) if hasattr(view, "get_project_id") else obj.project_id
        action = view.read_action if request.method in SAFE_METHODS else view.write_action
        return can(request.user, action, project_id)
