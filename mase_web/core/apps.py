from django.apps import AppConfig
from django.conf import settings

from agents import places


class CoreConfig(AppConfig):
    name = "mase_web.core"
    label = "core"
    verbose_name = "Pages, health and the launcher"

    def ready(self) -> None:
        # Web and worker processes resolve the names a spec gives to models and data files here.
        places.configure(
            settings.MODELS_DIR, settings.TICKETS_DIR, settings.DATA_DIR / "runs", settings.DATASETS_DIR
        )
