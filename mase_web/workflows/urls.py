from django.urls import path

from mase_web.api_routes import SimpleIdRouter
from mase_web.workflows import api

router = SimpleIdRouter()
router.register("workflows", api.WorkflowViewSet, basename="workflow")

# Included under api/ by mase_web/urls.py; the fixed paths come first so they are never read as ids.
urlpatterns = [
    path("workflows/templates/", api.TemplateListView.as_view(), name="workflow-templates"),
    path("workflows/templates/<slug:slug>/", api.TemplateDetailView.as_view(), name="workflow-template"),
    path("workflows/catalogue/", api.CatalogueView.as_view(), name="workflow-catalogue"),
    *router.urls,
]
