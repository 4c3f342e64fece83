from mase_web.api_routes import IdRouter
from mase_web.runs.api import RunViewSet

router = IdRouter()
router.register("runs", RunViewSet, basename="run")
urlpatterns = router.urls
