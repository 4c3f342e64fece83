"""Request-body fields that name an object by id, resolved only among the objects the caller may reach.

An id of another project's object and an id that does not exist get the same answer, so a request body
can neither read nor probe what lies outside the caller's projects.
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from rest_framework import serializers

from mase_web.accounts.models import Project
from mase_web.accounts.permissions import projects_where


def request_user(field: serializers.Field):
    request = field.context.get("request")
    return request.user if request is not None else AnonymousUser()


class ScopedIdField(serializers.PrimaryKeyRelatedField):
    """An object id resolved only among `scope(objects, caller)` — the caller's own objects."""

    def __init__(self, queryset, scope, **kwargs):
        self.scope = scope
        super().__init__(queryset=queryset, **kwargs)

    def get_queryset(self):
        return self.scope(super().get_queryset(), request_user(self))

    def to_internal_value(self, data):
        # a lookup by pk would take 1.5 (or "1.5" in a form) for object 1: an id is a whole number
        if isinstance(data, float) or (isinstance(data, str) and not data.strip().isdecimal()):
            self.fail("incorrect_type", data_type=type(data).__name__)
        return super().to_internal_value(data)


def _member_projects(projects, user):
    return projects.filter(pk__in=projects_where(user, "view_project"))


class ProjectField(ScopedIdField):
    """A project id, found only among the projects the caller belongs to (what they may do there is the
    view's question: a member without the role gets a 403, an outsider the same 400 as a missing id)."""

    default_error_messages = {
        "does_not_exist": "no project {pk_value} among yours",
        "incorrect_type": "a project is named by its id (a whole number)",
    }

    def __init__(self, **kwargs):
        super().__init__(Project.objects.all(), _member_projects, **kwargs)
