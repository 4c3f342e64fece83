from django.apps import AppConfig


class RunsConfig(AppConfig):
    name = "mase_web.runs"
    label = "runs"
    verbose_name = "Training and evaluation runs"

    def ready(self) -> None:
        from mase_web.runs import signals  # noqa: F401  (worker start-up recovery)
