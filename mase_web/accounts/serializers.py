from django.contrib.auth import get_user_model
from rest_framework import serializers

from mase_web.accounts.models import Membership


class MembershipSerializer(serializers.ModelSerializer):
    project_name = serializers.CharField(source="project.name", read_only=True)

    class Meta:
        model = Membership
        fields = ["project", "project_name", "role"]


class MeSerializer(serializers.ModelSerializer):
    memberships = MembershipSerializer(many=True, read_only=True)

    class Meta:
        model = get_user_model()
        fields = ["id", "username", "is_staff", "memberships"]


class MemberSerializer(serializers.ModelSerializer):
    """One member of a project: who, and their role there."""

    username = serializers.CharField(source="user.username", read_only=True)
    email = serializers.CharField(source="user.email", read_only=True)
    role_label = serializers.CharField(source="get_role_display", read_only=True)

    class Meta:
        model = Membership
        fields = ["id", "user", "username", "email", "role", "role_label"]
        read_only_fields = ["id", "user"]


class MemberInviteSerializer(serializers.Serializer):
    """Adds an existing user to a project, found by their username or their email."""

    user = serializers.CharField(max_length=254, help_text="The user's username or email address")
    role = serializers.ChoiceField(choices=Membership._meta.get_field("role").choices)

    def validate_user(self, value: str):
        text = value.strip()
        users = get_user_model().objects.filter(is_active=True)
        found = users.filter(username=text).first()
        if found is None and "@" in text:
            by_email = list(users.filter(email__iexact=text)[:2])
            if len(by_email) > 1:
                raise serializers.ValidationError("Several users have this email address: give the username.")
            found = by_email[0] if by_email else None
        if found is None:
            raise serializers.ValidationError(
                f"No user has the username or email {text!r}: they need an account before they can join "
                "(a site administrator creates one under Admin → Users)."
            )
        project = self.context["project"]
        existing = Membership.objects.filter(project=project, user=found).first()
        if existing is not None:
            raise serializers.ValidationError(
                f"{found.username} is already a member ({existing.get_role_display()}): change their role instead."
            )
        return found


class MemberRoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Membership._meta.get_field("role").choices)
