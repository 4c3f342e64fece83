"""Workflows: a team spec being designed (the autosaved draft) and its immutable published versions.

The draft lives on the `Workflow` row itself: it is edited many times a minute by the designer's
autosave and has no history of its own. Publishing snapshots the draft into a `WorkflowVersion` with
an author, a note and a time; versions are never changed afterwards (restoring one copies it back into
the draft). Node positions on the canvas are not part of the team spec (its validator refuses unknown
keys), so they travel beside it as `layout`: {agent_id: {"x": float, "y": float}}.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Workflow(models.Model):
    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="workflows")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, max_length=5000)
    spec = models.JSONField(
        default=dict, help_text="The draft team spec (may be invalid while being edited)."
    )
    layout = models.JSONField(default=dict, help_text="Canvas positions of the draft's agents by id.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.name


class ImmutableVersionError(RuntimeError):
    """A published version was about to be changed: a bug, versions are append-only."""


class WorkflowVersion(models.Model):
    workflow = models.ForeignKey(Workflow, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    spec = models.JSONField()
    layout = models.JSONField(default=dict)
    note = models.CharField(max_length=500)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]
        constraints = [models.UniqueConstraint(fields=["workflow", "number"], name="one_number_per_version")]

    def __str__(self) -> str:
        return f"{self.workflow} v{self.number}"

    def save(self, *args, **kwargs) -> None:
        if self.pk is not None:
            raise ImmutableVersionError(f"published version {self} cannot be changed")
        super().save(*args, **kwargs)
