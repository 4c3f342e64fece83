from django.db import transaction
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from mase_web.accounts.models import Membership, Project, Role
from mase_web.accounts.permissions import can
from mase_web.accounts.serializers import (
    MemberInviteSerializer,
    MemberRoleSerializer,
    MemberSerializer,
    MeSerializer,
)


class MeView(APIView):
    """The signed-in user with their project roles."""

    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        return Response(MeSerializer(request.user).data)


def _project(request: Request, project_id: int, action: str) -> Project:
    """The project, if the caller belongs to it (else the same 404 as a missing one), and may do `action`."""
    project = Project.objects.filter(pk=project_id).first()
    if project is None or not can(request.user, "view_project", project):
        raise NotFound(f"There is no project {project_id} among yours.")
    if not can(request.user, action, project):
        raise PermissionDenied("Only the project's admins add, change or remove its members.")
    return project


def _keep_an_admin(membership: Membership, field: str, change: str) -> None:
    """Refuse to take away the project's last admin (someone must be able to manage the members).

    Called inside the transaction that makes the change; the project's admin rows are locked so two
    admins demoting each other at once cannot both succeed.
    """
    if membership.role != Role.ADMIN:
        return
    admins = list(
        Membership.objects.select_for_update().filter(project_id=membership.project_id, role=Role.ADMIN)
    )
    if len(admins) <= 1:
        who = membership.user.username
        message = f"{who} is the project's last admin: make another member admin before you {change}."
        raise serializers.ValidationError({field: [message]})


class ProjectMembersView(APIView):
    """The members of a project, and adding one (project admins only)."""

    @extend_schema(responses=MemberSerializer(many=True))
    def get(self, request: Request, project_id: int) -> Response:
        project = _project(request, project_id, "view_project")
        members = project.memberships.select_related("user").order_by("user__username")
        return Response(MemberSerializer(members, many=True).data)

    @extend_schema(request=MemberInviteSerializer, responses={201: MemberSerializer})
    def post(self, request: Request, project_id: int) -> Response:
        project = _project(request, project_id, "manage_members")
        invite = MemberInviteSerializer(data=request.data, context={"project": project})
        invite.is_valid(raise_exception=True)
        membership = Membership.objects.create(
            project=project, user=invite.validated_data["user"], role=invite.validated_data["role"]
        )
        return Response(MemberSerializer(membership).data, status=status.HTTP_201_CREATED)


class ProjectMemberView(APIView):
    """One member of a project: change their role, or remove them (project admins only)."""

    def _membership(self, request: Request, project_id: int, membership_id: int, action: str) -> Membership:
        project = _project(request, project_id, action)
        return get_object_or_404(Membership.objects.select_related("user"), pk=membership_id, project=project)

    @extend_schema(responses=MemberSerializer)
    def get(self, request: Request, project_id: int, membership_id: int) -> Response:
        return Response(
            MemberSerializer(self._membership(request, project_id, membership_id, "view_project")).data
        )

    @extend_schema(request=MemberRoleSerializer, responses=MemberSerializer)
    def patch(self, request: Request, project_id: int, membership_id: int) -> Response:
        change = MemberRoleSerializer(data=request.data)
        with transaction.atomic():
            membership = self._membership(request, project_id, membership_id, "manage_members")
            change.is_valid(raise_exception=True)
            role = change.validated_data["role"]
            if role != membership.role:
                _keep_an_admin(membership, "role", "change their role")
                membership.role = role
                membership.save(update_fields=["role"])
        return Response(MemberSerializer(membership).data)

    @extend_schema(responses={204: None})
    def delete(self, request: Request, project_id: int, membership_id: int) -> Response:
        with transaction.atomic():
            membership = self._membership(request, project_id, membership_id, "manage_members")
            _keep_an_admin(membership, "member", "remove them")
            membership.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
