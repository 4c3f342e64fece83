"""Run Django in a fresh interpreter with a chosen environment (settings are read at import)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
MANAGED = ("DATABASE_URL", "REDIS_URL", "MASE_ENV", "SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "SECURE_COOKIES")


def clean_env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in MANAGED}
    env["MASE_DATA_DIR"] = str(tmp_path)
    env.update(overrides)
    return env


def run_python(code: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def run_manage(args: list[str], env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
