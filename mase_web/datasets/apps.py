from django.apps import AppConfig


class DatasetsConfig(AppConfig):
    name = "mase_web.datasets"
    label = "datasets"
    verbose_name = "Datasets"
