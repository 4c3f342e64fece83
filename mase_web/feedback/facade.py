"""What other apps may use of feedback: a project's feedback for a run, and queueing decisions to rate.

Runs read the feedback a training run learns from (`project_feedback`); deployments' decision review
queues the steps an operator sends for rating. Other apps import this module only (an import-linter
contract says so).
"""

from mase_web.feedback.enqueue import add_items
from mase_web.feedback.models import FeedbackItem, FeedbackQueue
from mase_web.feedback.snapshots import deployment_episode_key, single_step_snapshot, step_key
from mase_web.feedback.sources import project_feedback

__all__ = [
    "FeedbackItem",
    "FeedbackQueue",
    "add_items",
    "deployment_episode_key",
    "project_feedback",
    "single_step_snapshot",
    "step_key",
]
