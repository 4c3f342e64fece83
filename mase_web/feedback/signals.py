"""Annotators who join a project (or become annotators in it) get their share of its queues at once,
instead of waiting for a manager to call `assign/`."""

from __future__ import annotations

from django.db.models.signals import post_save
from django.dispatch import receiver

from mase_web.accounts.facade import Membership, Role
from mase_web.feedback.assignment import assign
from mase_web.feedback.models import FeedbackQueue


@receiver(post_save, sender=Membership, dispatch_uid="feedback.top_up_new_annotator")
def top_up_queues_for_annotator(sender, instance: Membership, raw: bool = False, **kwargs) -> None:
    """Balanced top-up of every queue of the project; `assign` only adds what is missing, so saving the
    same membership again changes nothing."""
    if raw or instance.role != Role.ANNOTATOR:  # raw: fixtures being loaded
        return
    for queue in FeedbackQueue.objects.filter(project_id=instance.project_id).order_by("pk"):
        assign(queue)
