"""Run a candidate function against assert-tests in a sandbox: never in the calling (web or worker) process.

`run_tests(code, tests)` writes the code and the tests into a fresh temporary directory and runs them in a
separate Python process (``python -I -S``: isolated mode, no site packages, no user environment), which
before it runs any test:

- is limited with ``resource.setrlimit``: CPU time (``RLIMIT_CPU``, `SandboxLimits.cpu_seconds`), address
  space (``RLIMIT_AS``, `SandboxLimits.memory_mb`), file size (``RLIMIT_FSIZE``), open files
  (``RLIMIT_NOFILE``), no core dumps; the parent also kills it (its whole process group) after
  `SandboxLimits.wall_seconds` of wall time;
- has no network: where the kernel allows unprivileged user namespaces the child is moved into an empty
  network namespace (``unshare(CLONE_NEWUSER | CLONE_NEWNET)``: no interface but a down loopback); in
  every case an audit hook (PEP 578, cannot be removed once installed) refuses every ``socket.*`` event,
  process creation (``subprocess.Popen``, ``os.system``, ``os.exec*``, ``os.fork``, ``os.posix_spawn``)
  and ``ctypes`` loading, so a test cannot open a socket or escape into another program, and refuses
  ``open`` for writing outside the temporary directory (reading world-readable files is not prevented:
  there is no filesystem namespace);
- runs with an empty environment, its working directory the temporary directory (removed afterwards).

Only code from the environment's own data is ever run (the shipped task file); user text never is.
`SandboxResult.enforced` lists what was in force for a run (``"netns"`` only where the namespace worked).
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000


@dataclass(frozen=True)
class SandboxLimits:
    """The limits one sandboxed run gets."""

    cpu_seconds: int = 2
    wall_seconds: float = 10.0
    memory_mb: int = 256
    file_bytes: int = 1 << 20
    open_files: int = 32


@dataclass
class SandboxResult:
    """How a run ended: ``status`` "ok" (every test ran; some may have failed), "timeout", "memory",
    "error" (the code did not load or the runner failed); per-test outcomes in ``outcomes``."""

    status: str
    passed: int = 0
    total: int = 0
    outcomes: list[str] = field(default_factory=list)
    detail: str = ""
    enforced: list[str] = field(default_factory=list)

    @property
    def all_passed(self) -> bool:
        return self.status == "ok" and self.total > 0 and self.passed == self.total


NETNS_CHECK = "[l.split(':')[0].strip() for l in open('/proc/net/dev').readlines()[2:]] == ['lo']"
"""True in a process whose network namespace has no interface but loopback."""
RUNNER = r"""
import json, os, sys
BLOCKED = ("socket.", "subprocess.Popen", "os.system", "os.exec", "os.fork", "os.posix_spawn", "os.spawn",
           "ctypes.", "os.kill", "pty.spawn")
HOME = os.getcwd()
def _guard(event, args):
    if event.startswith(BLOCKED):
        raise PermissionError(f"sandbox: {event} is not allowed")
    if event == "open" and isinstance(args[0], str) and isinstance(args[1], str) and set(args[1]) & set("wax+"):
        if not os.path.abspath(args[0]).startswith(HOME + os.sep):
            raise PermissionError("sandbox: writing outside the temporary directory is not allowed")
sys.addaudithook(_guard)
spec = json.loads(open("tests.json").read())
outcomes = []
namespace = {"__name__": "candidate"}
try:
    exec(compile(open("candidate.py").read(), "candidate.py", "exec"), namespace)
except MemoryError:
    print(json.dumps({"status": "memory", "outcomes": []})); sys.exit(0)
except BaseException as exc:
    print(json.dumps({"status": "error", "detail": f"{type(exc).__name__}: {exc}", "outcomes": []})); sys.exit(0)
status = "ok"
for test in spec["tests"]:
    try:
        exec(compile(test, "test", "exec"), dict(namespace))
        outcomes.append("pass")
    except AssertionError:
        outcomes.append("fail")
    except MemoryError:
        outcomes.append("memory"); status = "memory"; break
    except BaseException as exc:
        outcomes.append(f"error: {type(exc).__name__}: {str(exc)[:120]}")
print(json.dumps({"status": status, "outcomes": outcomes}))
"""


def _limit(limits: SandboxLimits, enforced: list[str]) -> None:
    """In the child, before exec: own process group, rlimits, and an empty network namespace if allowed."""
    os.setsid()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.unshare(CLONE_NEWUSER | CLONE_NEWNET)  # refused (e.g. in some containers): audit hook only
    except (OSError, AttributeError):
        pass
    size = limits.memory_mb << 20
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Last: the forked copy of a large parent (a web or worker process with torch loaded) is already past
    # this size, so anything it allocated after this call would fail; exec starts the small child afresh.
    resource.setrlimit(resource.RLIMIT_AS, (size, size))


def network_namespace_available() -> bool:
    """Whether this kernel lets an unprivileged process enter an empty network namespace (checked in a
    throwaway child)."""
    probe = "print(int(" + NETNS_CHECK + "))"
    try:
        out = subprocess.run(
            [sys.executable, "-I", "-S", "-c", probe],
            preexec_fn=lambda: _limit(SandboxLimits(), []),
            capture_output=True,
            text=True,
            timeout=10,
            env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return out.stdout.strip() == "1"


def run_tests(code: str, tests: list[str], limits: SandboxLimits | None = None) -> SandboxResult:
    """Run `tests` (assert statements) against `code` in a sandboxed child process (see the module doc)."""
    limits = limits or SandboxLimits()
    enforced = ["process", "rlimit_cpu", "rlimit_as", "rlimit_fsize", "rlimit_nofile", "audit_hook", "tmpdir"]
    with tempfile.TemporaryDirectory(prefix="mase-sandbox-") as tmp:
        root = Path(tmp)
        (root / "candidate.py").write_text(code, encoding="utf-8")
        (root / "tests.json").write_text(json.dumps({"tests": list(tests)}), encoding="utf-8")
        (root / "runner.py").write_text(
            f"import json\ntry:\n    netns = {NETNS_CHECK}\nexcept OSError:\n    netns = False\n"
            "print(json.dumps({'netns': netns}))\n" + RUNNER,
            encoding="utf-8",
        )
        try:
            proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "runner.py"],
                cwd=tmp,
                env={"PATH": "/usr/bin:/bin"},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                preexec_fn=lambda: _limit(limits, enforced),
            )
        except OSError as exc:
            return SandboxResult(
                "error", total=len(tests), detail=f"could not start: {exc}", enforced=enforced
            )
        try:
            out, err = proc.communicate(timeout=limits.wall_seconds)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, 9)
            except ProcessLookupError:
                pass
            proc.communicate()
            return SandboxResult("timeout", total=len(tests), detail="wall-clock limit", enforced=enforced)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    if proc.returncode in (-9, -24) or (proc.returncode != 0 and "CPU" in err):  # SIGKILL / SIGXCPU
        return SandboxResult("timeout", total=len(tests), detail="CPU-time limit", enforced=enforced)
    if len(lines) < 2:
        status = "memory" if "MemoryError" in err else "error"
        return SandboxResult(status, total=len(tests), detail=err[-300:], enforced=enforced)
    head, body = json.loads(lines[0]), json.loads(lines[-1])
    if head.get("netns"):
        enforced.append("netns")
    outcomes = list(body.get("outcomes", []))
    return SandboxResult(
        body.get("status", "error"),
        passed=sum(o == "pass" for o in outcomes),
        total=len(tests),
        outcomes=outcomes,
        detail=str(body.get("detail", "")),
        enforced=enforced,
    )
