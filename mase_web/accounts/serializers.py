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
