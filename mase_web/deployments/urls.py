"""API routes of this app (mounted under /api/ by mase_web/urls.py)."""

from rest_framework.routers import DefaultRouter

from mase_web.deployments.api import DecisionViewSet, DeploymentViewSet, EpisodeViewSet

router = DefaultRouter()
router.register("deployments", DeploymentViewSet, basename="deployment")
router.register("episodes", EpisodeViewSet, basename="episode")
router.register("decisions", DecisionViewSet, basename="decision")
urlpatterns = router.urls
