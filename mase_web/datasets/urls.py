"""API routes of this app (mounted under /api/ by mase_web/urls.py)."""

from mase_web.api_routes import IdRouter
from mase_web.datasets.api import DatasetVersionViewSet, DatasetViewSet

router = IdRouter()
router.register("datasets", DatasetViewSet, basename="dataset")
router.register("dataset-versions", DatasetVersionViewSet, basename="dataset-version")

urlpatterns = router.urls
