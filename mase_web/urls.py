from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from mase_web.accounts.api import MeView
from mase_web.core import views as pages
from mase_web.realtime.api import PingView

api = [
    path("health/", pages.HealthView.as_view(), name="health"),
    path("me/", MeView.as_view(), name="me"),
    path("notifications/ping/", PingView.as_view(), name="notifications-ping"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
]

urlpatterns = [
    path("", pages.home, name="home"),
    path("login/", auth_views.LoginView.as_view(template_name="login.html"), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/", include(api)),
]
