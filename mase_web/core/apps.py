from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "mase_web.core"
    label = "core"
    verbose_name = "Pages, health and the launcher"
