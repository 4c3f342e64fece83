"""Running one delivery of a run on a worker: claim it, train or evaluate, record the outcome.

A run is owned by one worker at a time through a lease: the worker that claims it renews
`heartbeat_at` while it runs. A worker killed mid-run stops renewing; recovery (at every worker's
start-up and periodically, see `recovery.py`) puts runs with a stale lease back on their queue, and
the next delivery resumes from the last checkpoint, continuing the event numbering from the last
event stored. A run that keeps killing its worker is failed after `RUN_MAX_DELIVERIES`. The database,
not the broker, says what must run: a queued run whose message the broker lost (an embedded Redis
killed with its queue) is dispatched again by the same recovery.
"""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import dataclass
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from agents.spec.paths import path_problems
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.recorder import RunEventRecorder, append_ending, ending_state, worker_name
from training.baselines import train_with_baselines
from training.events import EventStream

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Claim:
    run: Run
    resumed: bool


def heartbeat_timeout() -> timedelta:
    return timedelta(seconds=settings.RUN_HEARTBEAT_TIMEOUT)


def finish(run_id: int, state: str, error: str = "", metrics: dict | None = None) -> None:
    fields = {"state": state, "finished_at": timezone.now(), "error": error[:10_000]}
    if metrics is not None:
        fields["metrics"] = metrics
    Run.objects.filter(pk=run_id).update(**fields)


@transaction.atomic
def claim(run_id: int, task_id: str) -> Claim | None:
    """Take the run for this worker, or None when it must not run here (finished, or alive elsewhere)."""
    run = Run.objects.select_for_update().filter(pk=run_id).first()
    if run is None or run.is_terminal:
        return None
    now = timezone.now()
    if run.state == Run.State.RUNNING and run.heartbeat_at and now - run.heartbeat_at < heartbeat_timeout():
        return None  # a live worker holds it; this is a duplicate delivery
    if run.cancel_requested:
        run.state, run.finished_at = Run.State.CANCELLED, now
        run.save(update_fields=["state", "finished_at"])
        append_ending(run.pk, Run.State.CANCELLED)
        return None
    run.deliveries += 1
    if run.deliveries > settings.RUN_MAX_DELIVERIES:
        run.state, run.finished_at = Run.State.FAILED, now
        run.error = (
            f"gave up after {settings.RUN_MAX_DELIVERIES} deliveries: the run's worker died each time "
            "(out of memory or a crash in native code?)"
        )
        run.save(update_fields=["state", "finished_at", "error", "deliveries"])
        append_ending(run.pk, Run.State.FAILED, run.error)
        return None
    resumed = run.started_at is not None
    run.state, run.worker, run.task_id, run.heartbeat_at = Run.State.RUNNING, worker_name(), task_id, now
    run.started_at = run.started_at or now
    run.save(update_fields=["state", "worker", "task_id", "heartbeat_at", "started_at", "deliveries"])
    return Claim(run, resumed)


class StopFlag:
    """`should_stop()` for the trainer: true once the run is cancelled or deleted (read at most every
    `every` seconds, so checking at every update costs nothing)."""

    def __init__(self, run_id: int, every: float = 0.5):
        self.run_id, self.every = run_id, every
        self._checked, self._stop = 0.0, False

    def __call__(self) -> bool:
        now = time.monotonic()
        if not self._stop and now - self._checked >= self.every:
            self._checked = now
            flag = Run.objects.filter(pk=self.run_id).values_list("cancel_requested", flat=True).first()
            self._stop = flag is None or flag
        return self._stop


def spec_for_queue(spec: dict, queue: str) -> dict:
    """The spec a delivery trains: on the `gpu` queue a spec left on the default `training.device` "cpu"
    trains on CUDA when the worker has it (the trainers are device-agnostic); an explicit other device is
    kept, and a gpu-queue worker without CUDA (a test machine) trains on CPU with a warning."""
    training = spec.get("training") or {}
    if queue != Run.Device.GPU or training.get("device", "cpu") != "cpu":
        return spec
    import torch

    if not torch.cuda.is_available():
        log.warning("a run on the gpu queue, but this worker has no CUDA device: training on CPU")
        return spec
    return {**spec, "training": {**training, "device": "cuda"}}


def last_seq(run_id: int) -> int:
    return RunEvent.objects.filter(run_id=run_id).aggregate(last=Max("seq"))["last"] or 0


def clear_foreign_files(run: Run) -> None:
    """Remove what lies in a run's directory before its first event: it is not this run's.

    Directories are named by run id, and a database that was reset (or SQLite reusing the id of a
    deleted row) hands out an id again; resuming a stranger's checkpoint would end the new run at
    once with the old run's team. A run that has recorded an event keeps its files (a real resume).
    """
    if run.out_dir.exists():
        log.warning("run %s: removing files left in %s by an earlier run with the same id", run.pk, run.out_dir)
        shutil.rmtree(run.out_dir)


def execute(run_id: int, task_id: str) -> str | None:
    """Run one delivery; returns the run's final state, or None when this delivery did nothing."""
    import torch

    from training import api as training_api

    torch.set_num_threads(settings.RUN_TORCH_THREADS)
    taken = claim(run_id, task_id)
    if taken is None:
        return None
    run = taken.run
    stream = EventStream(start_seq=last_seq(run.pk))
    if stream.last_seq == 0:
        clear_foreign_files(run)
    recorder = RunEventRecorder(run.pk).attach(stream)
    run.out_dir.mkdir(parents=True, exist_ok=True)
    try:
        refused = path_problems(run.spec)
        if refused:  # a spec stored past the API's check must not reach the server's files either
            raise ValueError("; ".join(f"{path}: {message}" for path, message in refused))
        resources = run.spec.get("resources") or {}
        if resources.get("devices") and run.device != Run.Device.GPU:
            raise ValueError(
                f"the spec asks for {resources['devices']} GPU(s) (resources.devices) but the run was sent "
                "to the cpu queue; launch it on the gpu queue"
            )
        # resources.processes > 1: training_api.train starts that many data-parallel ranks with torch's
        # elastic launcher (training.distributed.launch) and relays rank 0's events onto `stream`.
        if run.kind == Run.Kind.TRAINING:
            from mase_web.feedback.facade import project_feedback

            # Annotators' ratings (and the project's reward model) feed the human_feedback reward term.
            job = partial(training_api.train, human_feedback=project_feedback(run.project_id))
            if (run.source or {}).get("baselines"):  # asked at launch: the verdict comes before `finished`
                job = partial(train_with_baselines, job)
        else:
            job = training_api.evaluate
        spec = spec_for_queue(run.spec, run.device)
        result = job(spec, run.out_dir, events=stream, should_stop=StopFlag(run.pk), resume=True)
        state = ending_state(result.status)
        recorder.close()
        finish(run.pk, state, metrics=result.metrics)
        return state
    except Exception as exc:  # the run fails; the worker lives on for the next job
        log.exception("run %s failed", run.pk)
        message = f"{exc.__class__.__name__}: {exc}"
        stream.emit("error", message=message)
        stream.emit("finished", status="failed", metrics={})
        recorder.close()
        finish(run.pk, Run.State.FAILED, error=message)
        return Run.State.FAILED
