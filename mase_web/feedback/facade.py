"""What other apps may use of feedback: a project's feedback for a run, queueing decisions to rate, and a
deployment's rated replies for its writer's reward model.

Runs read the feedback a training run learns from (`project_feedback`); deployments' decision review
queues the steps an operator sends for rating. Other apps import this module only (an import-linter
contract says so).
"""

from mase_web.feedback.enqueue import add_items
from mase_web.feedback.models import FeedbackItem, FeedbackQueue
from mase_web.feedback.snapshots import deployment_episode_key, single_step_snapshot, step_key
from mase_web.feedback.sources import project_feedback
from mase_web.feedback.writer_reward import RatedReply, deployment_rated_replies

__all__ = [
    "FeedbackItem",
    "FeedbackQueue",
    "RatedReply",
    "add_items",
    "deployment_episode_key",
    "deployment_rated_replies",
    "project_feedback",
    "single_step_snapshot",
    "step_key",
]
