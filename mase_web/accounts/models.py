"""Projects are teams of users; a membership gives a user one role in one project."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Role(models.TextChoices):
    PRODUCT_MANAGER = "product_manager", "Product manager"  # designs workflows, launches runs
    OPERATOR = "operator", "Operator"  # watches runs, reviews decision logs, controls breakers
    ANNOTATOR = "annotator", "Annotator"  # labels tickets' intents in the annotation queue, rates replies
    ADMIN = "admin", "Project admin"  # everything, including membership


class Project(models.Model):
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="Membership", related_name="projects")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=32, choices=Role.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "user"], name="one_role_per_project")]

    def __str__(self) -> str:
        return f"{self.user} — {self.role} in {self.project}"
