"""Which trained runs can be deployed, and in words why the others cannot (the deploy form lists both,
so nobody picks a run only to be refused after the click)."""

from __future__ import annotations

from pathlib import Path

from agents.spec import load_spec
from agents.spec.algorithms import is_deployable
from agents.spec.paths import refuse_paths
from mase_web.runs.facade import Run
from serving.model import RuntimeInputError, resolve_checkpoint

MAX_CANDIDATES = 100


def spec_problem(run: Run) -> str | None:
    """Why the run's spec cannot be served (None: it can). A spec stored before the server refused paths
    may still give one: it is refused by the worker's check, before anything opens what it names."""
    try:
        refuse_paths(run.spec)
        team = load_spec(run.spec, require_environment=True)
    except ValueError as exc:
        return f"the run's spec cannot be served: {exc}"
    if not is_deployable(team.training.algorithm):
        return (
            f"only MAPPO/IPPO teams can be deployed; this run trained {team.training.algorithm!r} "
            "(choose MAPPO in the designer's Training tab and train again)"
        )
    return None


def has_checkpoint(run: Run) -> bool:
    try:
        resolve_checkpoint(run.out_dir)
        return True
    except RuntimeInputError:
        pass
    return any(
        (Path(path) / "state.json").is_file() for path in run.checkpoints.values_list("path", flat=True)
    )


def undeployable_reason(run: Run) -> str | None:
    """Why `run` cannot be deployed, in words; None when it can."""
    if run.state != Run.State.SUCCEEDED:
        return f"only a succeeded run can be deployed (run {run.pk} is {run.state})"
    problem = spec_problem(run)
    if problem:
        return problem
    if not has_checkpoint(run):
        return f"run {run.pk} has no checkpoint to deploy; train it until it writes one"
    return None


def candidates(runs) -> list[dict]:
    """Finished training runs, newest first, each with `deployable` and, when not, `why`."""
    rows = []
    for run in runs.filter(kind=Run.Kind.TRAINING, state=Run.State.SUCCEEDED).order_by("-created_at")[
        :MAX_CANDIDATES
    ]:
        why = undeployable_reason(run)
        rows.append(
            {"id": run.pk, "name": run.name, "project": run.project_id, "deployable": why is None, "why": why}
        )
    return rows
