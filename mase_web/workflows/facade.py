"""What other apps may ask of workflows (PostHog-style facade: plain functions, frozen dataclasses).

Every function takes the caller (or an object already authorised for them), never a bare id alone: a
workflow of a project the caller cannot read answers exactly as a workflow that does not exist.
"""

from __future__ import annotations

from dataclasses import dataclass

from mase_web.accounts.facade import projects_where
from mase_web.workflows.models import Workflow


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


def published_spec(user, workflow_id: int, version: int | None = None) -> PublishedSpec:
    """The spec of a published version (the newest when `version` is None) of a workflow `user` may read."""
    readable = projects_where(user, "view_workflow")
    workflow = Workflow.objects.filter(pk=workflow_id, project__in=readable).first()
    if workflow is None:
        raise VersionNotFound(f"no workflow {workflow_id} among those you may read")
    versions = workflow.versions.all()
    found = (
        versions.filter(number=version).first()
        if version is not None
        else versions.order_by("-number").first()
    )
    if found is None:
        what = f"no version {version}" if version is not None else "no published version"
        raise VersionNotFound(f"workflow {workflow_id} has {what}; publish the draft first")
    return PublishedSpec(found.spec, workflow.pk, workflow.name, found.number, workflow.project_id)


def workflow_in_project(project_id: int, workflow_id: int | None) -> Workflow | None:
    """The workflow `workflow_id` if it belongs to the (already authorised) project, else None."""
    if workflow_id is None:
        return None
    return Workflow.objects.filter(pk=workflow_id, project_id=project_id).first()
