"""What other apps may ask of workflows (PostHog-style facade: plain functions, frozen dataclasses)."""

from __future__ import annotations

from dataclasses import dataclass

from mase_web.workflows.models import WorkflowVersion


@dataclass(frozen=True)
class PublishedSpec:
    spec: dict
    workflow_id: int
    workflow_name: str
    version: int
    project_id: int

    @property
    def source(self) -> dict:
        return {"workflow": self.workflow_id, "workflow_name": self.workflow_name, "version": self.version}


class VersionNotFound(LookupError):
    pass


def published_spec(workflow_id: int, version: int | None = None) -> PublishedSpec:
    """The spec of a published version (the newest when `version` is None)."""
    versions = WorkflowVersion.objects.select_related("workflow").filter(workflow_id=workflow_id)
    found = (
        versions.filter(number=version).first()
        if version is not None
        else versions.order_by("-number").first()
    )
    if found is None:
        what = f"version {version}" if version is not None else "a published version"
        raise VersionNotFound(f"workflow {workflow_id} has no {what}; publish the draft first")
    return PublishedSpec(
        found.spec, found.workflow_id, found.workflow.name, found.number, found.workflow.project_id
    )
