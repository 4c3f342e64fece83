from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from mase_web.accounts import views as account_pages
from mase_web.accounts.signin import SignInView, ThrottledAdminAuthenticationForm, obtain_auth_token
from mase_web.core import views as pages
from mase_web.datasets import views as dataset_pages
from mase_web.deployments import views as deployment_pages
from mase_web.feedback import views as feedback_pages
from mase_web.realtime.api import PingView
from mase_web.workflows import views as workflow_pages

# The docs page loads its script from its own URL (no inline script under the CSP); in production it
# asks anonymous visitors to sign in (the schema itself answers 403, see SPECTACULAR_SETTINGS).
api_docs = SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api_docs.html")
if settings.PRODUCTION:
    api_docs = login_required(api_docs)
admin.site.login_form = ThrottledAdminAuthenticationForm  # the admin's sign-in is throttled too

api = [
    path("health/", pages.HealthView.as_view(), name="health"),
    path("token/", obtain_auth_token, name="api-token"),
    path("notifications/ping/", PingView.as_view(), name="notifications-ping"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", api_docs, name="api-docs"),
    path("", include("mase_web.accounts.urls")),
    path("", include("mase_web.workflows.urls")),
    path("", include("mase_web.runs.urls")),
    path("", include("mase_web.deployments.urls")),
    path("", include("mase_web.feedback.urls")),
    path("", include("mase_web.datasets.urls")),
]

urlpatterns = [
    path("", pages.home, name="home"),
    path("favicon.ico", pages.favicon, name="favicon"),
    path("runs/", pages.runs, name="runs"),
    path("runs/compare/", pages.run_compare, name="run-compare"),
    path("runs/<int:run_id>/", pages.run_detail, name="run-detail"),
    path("login/", SignInView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("workflows/", workflow_pages.workflow_list, name="workflows"),
    path("workflows/<int:pk>/", workflow_pages.designer, name="designer"),
    path("deployments/", deployment_pages.deployment_list, name="deployments"),
    path("deployments/<int:pk>/", deployment_pages.deployment_detail, name="deployment-detail"),
    path("datasets/", dataset_pages.dataset_list, name="datasets"),
    path("datasets/<int:pk>/", dataset_pages.dataset_detail, name="dataset-detail"),
    path("review/", deployment_pages.review, name="review"),
    path("annotate/", feedback_pages.annotate, name="annotate"),
    path("feedback/", feedback_pages.feedback_manage, name="feedback"),
    path("members/", account_pages.members, name="members"),
    path("api/", include(api)),
]

# Unmatched URLs under /api/ answer in the API's error shape, not with an HTML page.
handler404 = "mase_web.api_errors.not_found"
