#!/usr/bin/env python
"""Django's command-line utility for MASE (`python manage.py serve` runs the whole product)."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
    from mase_web.startup import run_or_explain

    run_or_explain(lambda: _execute(sys.argv))


def _execute(argv: list[str]) -> None:
    from django.core.management import execute_from_command_line

    execute_from_command_line(argv)


if __name__ == "__main__":
    main()
