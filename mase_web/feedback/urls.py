"""API routes of this app (mounted under /api/ by mase_web/urls.py)."""

urlpatterns: list = []
