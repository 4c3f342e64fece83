"""API routes of this app (mounted under /api/ by mase_web/urls.py)."""

from django.urls import path

from mase_web.accounts.api import MeView, ProjectMembersView, ProjectMemberView

urlpatterns = [
    path("me/", MeView.as_view(), name="me"),
    path("projects/<int:project_id>/members/", ProjectMembersView.as_view(), name="project-members"),
    path(
        "projects/<int:project_id>/members/<int:membership_id>/",
        ProjectMemberView.as_view(),
        name="project-member",
    ),
]
