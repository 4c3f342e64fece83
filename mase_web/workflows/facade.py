"""What other apps may ask of workflows (PostHog-style facade: plain functions, frozen dataclasses).

Every function takes the caller (or an object already authorised for them), never a bare id alone: a
workflow of a project the caller cannot read answers exactly as a workflow that does not exist.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from mase_web.accounts.facade import projects_where
from mase_web.workflows import documents
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


@dataclass(frozen=True)
class GalleryTemplate:
    spec: dict
    slug: str
    name: str

    @property
    def source(self) -> dict:
        return {"template": self.slug, "template_name": self.name}


class TemplateNotFound(LookupError):
    pass


def gallery_template(slug: str) -> GalleryTemplate:
    """The gallery template `slug` with a copy of its spec (the caller may change it); any other name is
    refused with the gallery's slugs, so a run's recorded template is always a real one."""
    found = documents.template(slug)
    if found is None:
        names = ", ".join(t.slug for t in documents.templates())
        raise TemplateNotFound(f"no gallery template {slug!r}; choose one of: {names}")
    return GalleryTemplate(copy.deepcopy(found.spec), found.slug, found.summary()["name"])


def workflow_in_project(project_id: int, workflow_id: int | None) -> Workflow | None:
    """The workflow `workflow_id` if it belongs to the (already authorised) project, else None."""
    if workflow_id is None:
        return None
    return Workflow.objects.filter(pk=workflow_id, project_id=project_id).first()


def draft_with_intent(
    project_id: int,
    workflow_id: int | None,
    base_spec: dict,
    base_name: str,
    intent: dict,
    owner: str,
    by,
) -> Workflow:
    """A new intent on a design's canvas: added to the draft of workflow ``workflow_id`` (of the already
    authorised project), or to a new workflow made from ``base_spec`` when there is none. ``intent`` is
    {name, description, catalogue}: ``catalogue`` (the deployed one, [{name, description}]) is written out
    when the draft declares none of its own; ``owner`` (an agent id, or empty) is given the intent. Accepting
    the same intent twice changes nothing.
    The draft is never published here: the product manager reviews it in the designer first."""
    workflow = workflow_in_project(project_id, workflow_id)
    if workflow is None:
        workflow = Workflow.objects.create(
            project_id=project_id, name=f"{base_name}: next generation", spec=copy.deepcopy(base_spec),
            created_by=by, updated_by=by,
        )  # fmt: skip
    spec = copy.deepcopy(workflow.spec or {})
    params = spec.setdefault("environment", {}).setdefault("params", {})
    declared = params.get("intents") if isinstance(params.get("intents"), list) else []
    catalogue = list(declared or intent["catalogue"])  # the draft's own catalogue wins over the deployed one
    names = [i.get("name") if isinstance(i, dict) else i for i in catalogue]
    if intent["name"] not in names:
        catalogue.append({"name": intent["name"], "description": intent["description"]})
    params["intents"] = catalogue
    for agent in spec.get("agents") or []:
        if owner and agent.get("id") == owner and intent["name"] not in (agent.get("intents") or []):
            agent["intents"] = [*(agent.get("intents") or []), intent["name"]]
    workflow.spec, workflow.updated_by = spec, by
    workflow.save(update_fields=["spec", "updated_by", "updated_at"])
    return workflow
