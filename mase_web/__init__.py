"""MASE web layer: the Django project (settings, ASGI, Celery app, domain apps)."""

from mase_web.celery import app as celery_app

__all__ = ["celery_app"]
