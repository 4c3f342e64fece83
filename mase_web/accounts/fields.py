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


class ProjectField(serializers.PrimaryKeyRelatedField):
    """A project id, found only among the projects the caller belongs to (what they may do there is the
    view's question: a member without the role gets a 403, an outsider the same 400 as a missing id)."""

    default_error_messages = {
        "does_not_exist": "no project {pk_value} among yours",
        "incorrect_type": "a project is named by its id (a whole number)",
    }

    def __init__(self, **kwargs):
        super().__init__(queryset=Project.objects.all(), **kwargs)

    def get_queryset(self):
        return super().get_queryset().filter(pk__in=projects_where(request_user(self), "view_project"))
