"""What other apps may ask of runs (plain functions; the caller passes an already authorised project).

Deployments pick a run and show its checkpoint relative to it; feedback shows a run's text. Other apps
import this module only (an import-linter contract says so).
"""

from __future__ import annotations

from django.db import transaction

from agents.places import find_checkpoint
from mase_web.runs.dispatch import dispatch
from mase_web.runs.models import Run, shown_checkpoint_path, shown_text

__all__ = [
    "MAX_ID_DIGITS",
    "Run",
    "launch_run",
    "run_project_id",
    "shown_checkpoint_path",
    "shown_text",
    "teacher_problem",
]

MAX_ID_DIGITS = 18  # a 64-bit id; longer digit strings are no run (and would overflow SQLite)


def run_project_id(run_id: int) -> int | None:
    """The project a run belongs to, or None when there is no such run; the caller checks access to it."""
    return Run.objects.filter(pk=run_id).values_list("project_id", flat=True).first()


def launch_run(project_id: int, name: str, spec: dict, source: dict, by=None) -> Run:
    """Create a training run of an already validated ``spec`` and queue it on a worker (a deployment's
    evolution launches its challenger this way); ``source`` says where the spec came from."""
    run = Run.objects.create(project_id=project_id, name=name[:200], spec=spec, source=source, created_by=by)
    transaction.on_commit(lambda: dispatch(run))  # a worker must find the row when the message arrives
    return run


def teacher_problem(spec: object, project_id: int) -> str | None:
    """Why a spec's checkpoint teacher may not be read by a run of the project (None when it may).

    On the server a teacher is one of the project's own runs, named by its id; another project's run
    answers exactly as a run that does not exist. The form of the value is the validator's to check.
    """
    training = spec.get("training") if isinstance(spec, dict) else None
    if not isinstance(training, dict) or training.get("teacher") != "checkpoint":
        return None
    run_id = training.get("teacher_checkpoint")
    if not isinstance(run_id, str) or not run_id:
        return None
    if not run_id.isdigit() or len(run_id) > MAX_ID_DIGITS:
        return 'a teacher is one of this project\'s runs, named by its id (e.g. "12")'
    if not Run.objects.filter(pk=int(run_id), project_id=project_id).exists():
        return f"no run {run_id} in this project"
    if find_checkpoint(run_id) is None:
        return f"run {run_id} has no MAPPO checkpoint yet; train it until it writes one"
    return None
