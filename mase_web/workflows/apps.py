from django.apps import AppConfig


class WorkflowsConfig(AppConfig):
    name = "mase_web.workflows"
    label = "workflows"
    verbose_name = "Workflows"
