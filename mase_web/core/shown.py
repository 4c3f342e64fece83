"""Server paths as answers show them: settings' names and relative paths, never the server's directories."""

from __future__ import annotations

import re

from django.conf import settings


def shown_text(text: str) -> str:
    """``text`` (an error message, a traceback) as an answer shows it: a run's directory named "run 12", the
    server's other directories by their setting ("MASE_MODELS_DIR/qwen"), the code's files relative to the
    repository. The library's errors name the paths they opened; answers never spell out the server's."""
    runs = str(settings.DATA_DIR / "runs")
    text = re.sub(re.escape(runs) + r"/(\d+)", r"run \1", text)
    named = {
        str(settings.MODELS_DIR): "MASE_MODELS_DIR",
        str(settings.TICKETS_DIR): "MASE_TICKETS_DIR",
        str(settings.DATASETS_DIR): "MASE_DATASETS_DIR",
        runs: "MASE_DATA_DIR/runs",
        str(settings.DATA_DIR): "MASE_DATA_DIR",
        str(settings.BASE_DIR): ".",
    }
    for root in sorted(named, key=len, reverse=True):  # the deepest first: most are under the data dir
        inside = "" if named[root] == "." else f"{named[root]}/"
        text = text.replace(f"{root}/", inside).replace(root, named[root])
    return text
