"""What other apps may use of accounts: projects, memberships and roles, and who may do what.

Accounts is the ground every other app stands on (each object belongs to a project, each request is
checked against the caller's role), so its facade re-exports the project and membership models, the
permission checks and the serializer fields that scope ids to the caller's projects. Other apps import
this module only (an import-linter contract says so).
"""

from mase_web.accounts.demo import DEMO_USERNAME, ensure_demo_data
from mase_web.accounts.fields import ProjectField, ScopedIdField, request_user
from mase_web.accounts.models import Membership, Project, Role
from mase_web.accounts.permissions import (
    ProjectActionPermission,
    actions_anywhere,
    can,
    projects_where,
    refuse_before_body,
    role_allows,
    role_column,
)

__all__ = [
    "DEMO_USERNAME",
    "Membership",
    "Project",
    "ProjectActionPermission",
    "ProjectField",
    "Role",
    "ScopedIdField",
    "actions_anywhere",
    "can",
    "ensure_demo_data",
    "projects_where",
    "refuse_before_body",
    "request_user",
    "role_allows",
    "role_column",
]
