from django.apps import AppConfig


class FeedbackConfig(AppConfig):
    name = "mase_web.feedback"
    label = "feedback"
    verbose_name = "Human reward feedback"
