from django.apps import AppConfig


class DeploymentsConfig(AppConfig):
    name = "mase_web.deployments"
    label = "deployments"
    verbose_name = "Deployments, inference and operator review"
