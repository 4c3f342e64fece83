from django.apps import AppConfig


class RealtimeConfig(AppConfig):
    name = "mase_web.realtime"
    label = "realtime"
    verbose_name = "Live streams (WebSockets)"

    def ready(self) -> None:
        from mase_web.realtime import access  # noqa: F401 - registers the membership receivers
