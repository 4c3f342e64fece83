"""Which trained runs can be deployed, and in words why the others cannot (the deploy form lists both,
so nobody picks a run only to be refused after the click)."""

from __future__ import annotations

from pathlib import Path

from agents.envs.routing import routing
from agents.spec import load_spec
from agents.spec.algorithms import is_deployable
from agents.spec.paths import refuse_paths
from mase_web.deployments.models import site_scope_gate
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


UNSERVABLE = {"confidence_threshold": None, "fallback_preview": False, "routing": False, "scope_gate": False}


def breaker_facts(run: Run) -> dict:
    """The run's own breaker threshold (what a deployment keeps unless the form moves it), whether its
    fallback can be previewed (an environment with a dev split of tickets), whether it routes tickets by
    intents and, then, where its scope gate starts (the site's default); `UNSERVABLE` for a spec that cannot
    be served."""
    from serving.breaker import BreakerConfig
    from training.mappo.calibration import dev_params

    try:
        team = load_spec(run.spec, require_environment=True)
        threshold = BreakerConfig.from_spec(team.circuit_breaker).confidence_threshold
        previewable = dev_params(team.environment.name, dict(team.environment.params)) is not None
    except ValueError:
        return dict(UNSERVABLE)
    routes = routing(team.environment.name) is not None
    return {
        "confidence_threshold": threshold,
        "fallback_preview": previewable,
        "routing": routes,
        "scope_gate": routes and site_scope_gate(),
    }


def candidates(runs) -> list[dict]:
    """Finished training runs, newest first, each with `deployable` and, when not, `why`; a deployable one
    with its breaker facts (`breaker_facts`)."""
    rows = []
    for run in runs.filter(kind=Run.Kind.TRAINING, state=Run.State.SUCCEEDED).order_by("-created_at")[
        :MAX_CANDIDATES
    ]:
        why = undeployable_reason(run)
        facts = breaker_facts(run) if why is None else dict(UNSERVABLE)
        rows.append(
            {"id": run.pk, "name": run.name, "project": run.project_id, "deployable": why is None, "why": why}
            | facts
        )
    return rows
