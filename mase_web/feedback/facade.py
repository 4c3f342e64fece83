"""What other apps may use of feedback: a project's feedback for a run, queueing decisions to rate, and a
deployment's ratings reward model as its writer's reward.

Runs read the feedback a training run learns from (`project_feedback`); deployments' decision review
queues the steps an operator sends for rating. Other apps import this module only (an import-linter
contract says so).
"""

from mase_web.feedback.enqueue import add_items
from mase_web.feedback.models import FeedbackItem, FeedbackQueue
from mase_web.feedback.snapshots import deployment_episode_key, single_step_snapshot, step_key
from mase_web.feedback.sources import project_feedback
from mase_web.feedback.writer_reward import RatingsReward, deployment_ratings_reward, reply_texts

__all__ = [
    "FeedbackItem",
    "FeedbackQueue",
    "RatingsReward",
    "add_items",
    "deployment_episode_key",
    "deployment_ratings_reward",
    "project_feedback",
    "reply_texts",
    "single_step_snapshot",
    "step_key",
]
