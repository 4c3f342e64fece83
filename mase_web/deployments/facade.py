"""What other apps may use of deployments: the rows feedback snapshots and queues decisions from.

Feedback turns a deployment's episodes and decision steps into items to rate, and lists a project's
deployments as sources; it reads them here, and the intents a deployment's tickets are labelled with
(`deployment_catalogue`). Other apps import this module only (an import-linter contract says so).
"""

from __future__ import annotations

from mase_web.deployments.accepted_intents import deployment_catalogue
from mase_web.deployments.models import DecisionStep, Deployment, Episode

__all__ = ["DecisionStep", "Deployment", "Episode", "deployment_catalogue", "deployment_in_project"]


def deployment_in_project(deployment_id: int, project_id: int) -> Deployment | None:
    """The project's deployment with that id; None when there is none (another project's answers the same)."""
    return Deployment.objects.filter(pk=deployment_id, project_id=project_id).first()
