"""`manage.py serve --demo` (what `make run` ends in) brings the product up, signs in, and leaves no orphans;
without `--demo` it makes no account."""

import http.cookiejar
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import psutil
import pytest

from conftest import ROOT, free_port
from mase_web.core.tests.helpers import clean_env, run_python

pytestmark = pytest.mark.services


def read_until(proc: subprocess.Popen, pattern: str, timeout: float = 120) -> list[str]:
    lines, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
        lines.append(line)
        if re.search(pattern, line):
            return lines
    raise AssertionError(f"{pattern!r} never printed; output:\n{''.join(lines)}")


def sign_in(base: str, username: str, password: str) -> str:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{base}login/").read()
    token = next(c.value for c in jar if c.name == "csrftoken")
    form = urllib.parse.urlencode({"username": username, "password": password, "csrfmiddlewaretoken": token})
    request = urllib.request.Request(
        f"{base}login/", data=form.encode(), headers={"Referer": f"{base}login/"}
    )
    with opener.open(request) as response:
        return response.read().decode()


def test_serve_runs_everything_and_stops_cleanly(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--demo", "--port", str(port)],
        cwd=ROOT, env=clean_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        output = "".join(read_until(proc, r"MASE is running at"))
        output += "".join(read_until(proc, r"sign in as"))
        url = re.search(r"running at (http://\S+)", output).group(1)
        username, password = re.search(r"sign in as: (\S+) / (\S+)", output).groups()
        children = psutil.Process(proc.pid).children(recursive=True)
        names = " ".join(" ".join(c.cmdline()) for c in children)
        assert "redis-server" in names and " web " in names and " worker " in names

        home = sign_in(url, username, password)
        assert 'data-page="home"' in home and username in home
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    gone, alive = psutil.wait_procs(children, timeout=20)
    assert not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE], alive


def test_serve_without_demo_makes_no_account(tmp_path):
    env = clean_env(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(free_port())],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        output = "".join(read_until(proc, r"no demo account"))
        assert "MASE is running at" in output and "sign in as" not in output
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    count = run_python(
        "import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'mase_web.settings'); django.setup();"
        "from django.contrib.auth import get_user_model; print(get_user_model().objects.count())",
        env,
    )
    assert count.returncode == 0, count.stderr
    assert count.stdout.strip().splitlines()[-1] == "0"
