"""What other apps may use of deployments: the rows feedback snapshots and queues decisions from.

Feedback turns a deployment's episodes and decision steps into items to rate, and lists a project's
deployments as sources; it reads them here. Other apps import this module only (an import-linter
contract says so).
"""

from mase_web.deployments.models import DecisionStep, Deployment, Episode

__all__ = ["DecisionStep", "Deployment", "Episode"]
