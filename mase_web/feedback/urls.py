"""API routes of this app (mounted under /api/ by mase_web/urls.py)."""

from django.urls import path

from mase_web.api_routes import IdRouter
from mase_web.feedback.api import (
    IntentLabelView,
    JudgementView,
    MyItemsView,
    QueueViewSet,
    RatingView,
    RewardModelViewSet,
)

router = IdRouter()
router.register("feedback/queues", QueueViewSet, basename="feedback-queue")
router.register("feedback/reward-models", RewardModelViewSet, basename="feedback-reward-model")

urlpatterns = [
    path("feedback/my-items/", MyItemsView.as_view(), name="feedback-my-items"),
    path("feedback/ratings/", RatingView.as_view(), name="feedback-ratings"),
    path("feedback/judgements/", JudgementView.as_view(), name="feedback-judgements"),
    path("feedback/intent-labels/", IntentLabelView.as_view(), name="feedback-intent-labels"),
    *router.urls,
]
