"""Champion against challenger on the deployment's frozen evaluation slice (`deployments.evolution`).

Both teams are loaded as serving runtimes (the code path that answers customers) and answer the same slice
tickets; a ticket counts as right when the predicted intents are exactly its corrected ones. The paired
comparison and the verdict are `serving.promotion.compare`'s.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from mase_web.deployments.evolution import (
    EvolutionRefused,
    evaluation_slice,
    evolve,
    policy_of,
    promote,
    training_rows,
)
from mase_web.deployments.models import Alert, Correction, Deployment, Generation
from mase_web.runs.facade import Run, shown_text
from serving.model import RuntimeInputError, resolve_checkpoint
from serving.promotion import check_disjoint, compare

log = logging.getLogger(__name__)


def run_checkpoint(run: Run) -> str | None:
    """A succeeded run's checkpoint directory to serve (its best or last), None when it wrote none."""
    try:
        return str(resolve_checkpoint(run.out_dir))
    except RuntimeInputError:
        pass
    for row in run.checkpoints.order_by("-step", "-id"):
        if (Path(row.path) / "state.json").is_file():
            return row.path
    return None


def answers(spec: dict, checkpoint: str, texts: list[str]) -> list[list[str]]:
    """The intents a team (spec + checkpoint) predicts for each text, through a serving runtime."""
    from agents.spec import load_spec
    from mase_web.deployments.runtimes import backbone_for
    from serving.runtime import RuntimeConfig, TeamRuntime

    team = load_spec(spec, require_environment=True)
    runtime = TeamRuntime.from_spec_checkpoint(
        team, checkpoint, backbone=backbone_for(team), config=RuntimeConfig(timeout_s=30.0), names_only=True
    )
    try:
        return [
            list((runtime.run_ticket(text).get("info") or {}).get("predicted_intents") or [])
            for text in texts
        ]
    finally:
        runtime.close()


def judge(generation: Generation) -> dict[str, Any]:
    """Compare ``generation`` with its parent on the slice; store the comparison (and promote if allowed)."""
    deployment, parent = generation.deployment, generation.parent
    policy = policy_of(deployment)
    tickets = evaluation_slice(deployment, policy)
    trained_on = [r["episode"] for r in training_rows(deployment, policy)[0] if r["episode"] is not None]
    check_disjoint([t["episode"] for t in tickets], trained_on)
    texts = [t["text"] for t in tickets]
    truth = [sorted(t["intents"]) for t in tickets]
    old = answers(parent.spec, parent.checkpoint, texts)
    new = answers(generation.spec, generation.checkpoint, texts)
    result = compare(
        [sorted(a) == b for a, b in zip(old, truth, strict=True)],
        [sorted(a) == b for a, b in zip(new, truth, strict=True)],
        truth,
        policy.rule,
    )
    generation.comparison = result.as_dict()
    generation.reason = result.reason
    generation.phase = Generation.Phase.READY
    generation.status = Generation.Status.CANDIDATE
    generation.save(update_fields=["comparison", "reason", "phase", "status"])
    if result.promote and policy.auto_promote:
        promote(generation, None)
    else:
        alert_on_plateau(deployment)
    return generation.comparison


PLATEAU_GENERATIONS = 3


def alert_on_plateau(deployment: Deployment) -> Alert | None:
    """The schedule's plateau rule across generations: the last three judged challengers all short of the
    declared gain raise one alert (per newest generation) suggesting a change of reward or data."""
    judged = list(
        deployment.generations.filter(number__gt=1, phase=Generation.Phase.READY)
        .exclude(comparison={})
        .order_by("-number")[:PLATEAU_GENERATIONS]
    )
    if len(judged) < PLATEAU_GENERATIONS or any(g.comparison.get("promote") for g in judged):
        return None
    name = "evolution_plateau"
    numbers = ", ".join(str(g.number) for g in reversed(judged))
    detail = (
        f"generations {numbers} brought no declared gain on the evaluation slice: change the reward or the "
        "data (more or other corrections, a new intent) before evolving again"
    )
    if deployment.alerts.filter(name=name, detail=detail).exists():
        return None
    return Alert.objects.create(deployment=deployment, level="warning", name=name, detail=detail)


def _fail(generation: Generation, reason: str) -> None:
    Generation.objects.filter(pk=generation.pk).update(
        phase=Generation.Phase.FAILED, status=Generation.Status.REJECTED, reason=reason
    )


@shared_task(name="mase_web.deployments.evaluate_generation")
def evaluate_generation(generation_id: int) -> str:
    generation = Generation.objects.select_related("deployment", "parent", "run").get(pk=generation_id)
    _teach_writer(generation)
    try:
        judge(generation)
    except (EvolutionRefused, ValueError, RuntimeInputError, OSError) as exc:
        _fail(generation, f"could not compare it with its parent: {shown_text(str(exc))}")
    except Exception:  # a worker must record the end, whatever it was
        log.exception("evaluating generation %s failed", generation_id)
        _fail(generation, "evaluating it failed on the worker; see the worker's log")
    return Generation.objects.get(pk=generation_id).phase


def _teach_writer(generation: Generation) -> None:
    """The challenger's writer from the deployment's ratings (`writer_training`), recorded in its data; a
    writer that cannot be trained leaves the replies plain and the routing verdict to come."""
    from mase_web.deployments.writer_training import teach_writer

    try:
        writer = teach_writer(generation)
    except Exception as exc:  # noqa: BLE001 - the writer is optional; judging the team goes on
        log.exception("teaching generation %s's writer failed", generation.pk)
        writer = {"error": shown_text(str(exc))[:500]}
    if writer is not None:
        generation.data = {**(generation.data or {}), "writer": writer}
        generation.save(update_fields=["data"])


def settle(deployment: Deployment) -> None:
    """Move training generations whose run ended on: a succeeded run's is evaluated on a worker (once:
    the phase changes under a filtered update), a failed or cancelled run's is rejected."""
    for generation in deployment.generations.filter(phase=Generation.Phase.TRAINING).select_related("run"):
        run = generation.run
        if not run.is_terminal:
            continue
        if run.state != Run.State.SUCCEEDED:
            _fail(generation, f"its training run {run.pk} {run.state}")
            continue
        checkpoint = run_checkpoint(run)
        if checkpoint is None:
            _fail(generation, f"its training run {run.pk} wrote no checkpoint")
            continue
        moved = Generation.objects.filter(pk=generation.pk, phase=Generation.Phase.TRAINING).update(
            phase=Generation.Phase.EVALUATING, checkpoint=checkpoint
        )
        if moved:
            transaction.on_commit(lambda pk=generation.pk: _dispatch(pk))


def _dispatch(generation_id: int) -> None:
    if getattr(settings, "MASE_EVALUATE_INLINE", False):  # tests and single-process setups
        evaluate_generation(generation_id)
    else:
        evaluate_generation.apply_async((generation_id,), queue="cpu")


WATCH_EVERY_S = 30
WATCH_FOR_S = 7 * 86400  # a run queued longer than this is left to the next reading of the lineage


@shared_task(name="mase_web.deployments.watch_generation")
def watch_generation(generation_id: int) -> str:
    """Look at a training generation every WATCH_EVERY_S until its run ends, then settle it (evaluated on a
    worker, or rejected): the verdict comes without anyone opening the deployment page."""
    generation = Generation.objects.select_related("deployment").filter(pk=generation_id).first()
    if generation is None or generation.phase != Generation.Phase.TRAINING:
        return "settled"
    settle(generation.deployment)
    generation.refresh_from_db()
    age = (timezone.now() - generation.created_at).total_seconds()
    if generation.phase == Generation.Phase.TRAINING and age < WATCH_FOR_S:
        watch_generation.apply_async((generation_id,), countdown=WATCH_EVERY_S, queue="cpu")
    return generation.phase


def watch(generation: Generation) -> None:
    """Start watching a new generation once its row is committed."""
    transaction.on_commit(
        lambda: watch_generation.apply_async((generation.pk,), countdown=WATCH_EVERY_S, queue="cpu")
    )


def maybe_evolve_after_correction(deployment: Deployment) -> Generation | None:
    """The "after N new corrections" trigger, checked when a correction lands (never raises)."""
    policy = policy_of(deployment)
    if policy.after_corrections <= 0:
        return None
    since = deployment.generations.order_by("-created_at").values_list("created_at", flat=True).first()
    new = Correction.objects.filter(episode__deployment=deployment)
    if since is not None:
        new = new.filter(created_at__gt=since)
    if new.count() < policy.after_corrections:
        return None
    n = policy.after_corrections
    trigger = f"after {n} correction{'' if n == 1 else 's'}"
    try:
        generation = evolve(deployment, None, trigger=trigger)
    except (EvolutionRefused, ValueError, LookupError, OSError) as exc:
        record_skipped(deployment, trigger, exc)
        return None
    watch(generation)
    return generation


SKIPPED = "evolution_skipped"


def record_skipped(deployment: Deployment, trigger: str, exc: Exception) -> Alert | None:
    """A trigger (the schedule, N corrections) that could not evolve leaves its reason as an alert on the
    deployment (an empty evaluation slice, an unreadable ticket file…), once while the reason stays the same;
    one that only has to wait (too soon, a challenger in flight) leaves nothing: it tries again later."""
    if isinstance(exc, EvolutionRefused) and exc.waits:
        return None
    detail = f"{trigger}: evolution skipped: {shown_text(str(exc))}"
    last = deployment.alerts.filter(name=SKIPPED).first()  # newest first
    if last is not None and last.detail == detail:
        return None
    return Alert.objects.create(deployment=deployment, level="warning", name=SKIPPED, detail=detail)
