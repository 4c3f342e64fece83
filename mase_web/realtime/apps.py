from django.apps import AppConfig


class RealtimeConfig(AppConfig):
    name = "mase_web.realtime"
    label = "realtime"
    verbose_name = "Live streams (WebSockets)"
