from django.apps import AppConfig


class FeedbackConfig(AppConfig):
    name = "mase_web.feedback"
    label = "feedback"
    verbose_name = "Human reward feedback"

    def ready(self) -> None:
        from mase_web.feedback import signals  # noqa: F401 - registers the membership receiver
