"""Recovering queued runs whose broker message was lost, against the real Redis broker.

The `gpu` queue is used because no worker consumes it outside the tests that start one, so what the
broker holds there is exactly what these tests put in it.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from mase_web.runs.execution import heartbeat_timeout
from mase_web.runs.models import Run
from mase_web.runs.recovery import requeue_lost
from mase_web.runs.tasks import dispatch, held_task_ids
from mase_web.runs.tests.conftest import quick_spec

pytestmark = pytest.mark.django_db


def queued_run(team, **fields) -> Run:
    return Run.objects.create(project=team[0], name="q", device="gpu", spec=quick_spec(), **fields)


def age(run: Run) -> None:
    """Make the run's dispatch older than the grace period."""
    long_ago = timezone.now() - 2 * heartbeat_timeout()
    Run.objects.filter(pk=run.pk).update(dispatched_at=long_ago, created_at=long_ago)


def test_a_lost_delivery_is_sent_again_once(team, gpu_queue):
    run = queued_run(team)
    first = dispatch(run)
    age(run)
    assert first in held_task_ids()
    assert requeue_lost(settle=0) == []  # the broker still holds it: a queued run waits its turn

    gpu_queue.queue_purge("gpu")  # the broker forgets it, as a killed embedded Redis does
    assert first not in held_task_ids()
    assert requeue_lost(settle=0) == [run.pk]
    run.refresh_from_db()
    assert run.task_id != first and run.task_id in held_task_ids() and run.state == "queued"
    assert timezone.now() - run.dispatched_at < timedelta(seconds=5)
    assert gpu_queue.client.llen("gpu") == 1
    assert requeue_lost(settle=0) == []  # done: the new delivery is fresh and held


def test_a_delivery_taken_by_a_worker_counts_as_held(team, gpu_queue):
    run = queued_run(team)
    task_id = dispatch(run)
    age(run)
    taken = gpu_queue.basic_get("gpu", no_ack=False)  # off the queue, not yet acknowledged
    assert taken is not None and gpu_queue.client.llen("gpu") == 0
    assert task_id in held_task_ids()
    assert requeue_lost(settle=0) == []


def test_only_one_recoverer_replaces_a_lost_delivery(team, gpu_queue):
    run = queued_run(team)
    lost = dispatch(run)
    gpu_queue.queue_purge("gpu")
    winner = dispatch(run, replacing=lost)
    assert winner is not None
    assert dispatch(run, replacing=lost) is None  # a second recoverer read the same lost id: it loses
    assert gpu_queue.client.llen("gpu") == 1
    Run.objects.filter(pk=run.pk).update(state="running")
    assert dispatch(run, replacing=winner) is None  # taken by a worker meanwhile: not queued any more


def test_what_recovery_leaves_alone(team, gpu_queue):
    fresh = queued_run(team)  # queued a moment ago, its message maybe still on its way
    never_sent = queued_run(team)  # the web process died between saving the run and dispatching it
    age(never_sent)
    ended = queued_run(team, state="cancelled")
    age(ended)
    assert requeue_lost(settle=0) == [never_sent.pk]
    assert Run.objects.get(pk=fresh.pk).task_id == "" and Run.objects.get(pk=ended.pk).task_id == ""


@pytest.mark.django_db(transaction=True)  # the recorder writes from its own thread
def test_a_new_run_never_resumes_files_left_under_its_id(team, settings, tmp_path):
    """A reset database hands out a run id again: the new run must train its own team from scratch."""
    from mase_web.runs.execution import execute
    from mase_web.runs.models import RunEvent

    settings.DATA_DIR = tmp_path
    run = Run.objects.create(project=team[0], name="new", spec=quick_spec(episodes=64), task_id="t1")
    stale = run.out_dir / "checkpoints" / "ckpt-000999999"
    stale.mkdir(parents=True)
    (stale / "state.json").write_text('{"episode": 999999}')
    assert execute(run.pk, "t1") == Run.State.SUCCEEDED
    started = RunEvent.objects.get(run=run, type="started").payload
    assert started["resumed_from"] is None
    assert not stale.exists()
    assert Run.objects.get(pk=run.pk).metrics["episodes"] > 0

    # A real resume (the run has recorded events) keeps its files.
    kept = run.out_dir / "keep.txt"
    kept.write_text("mine")
    Run.objects.filter(pk=run.pk).update(state=Run.State.QUEUED, task_id="t2")
    execute(run.pk, "t2")
    assert kept.exists()


@pytest.mark.django_db(transaction=True)
def test_a_recorder_whose_run_was_deleted_drops_its_events_instead_of_retrying(team):
    """Retrying forever would fail forever, and hold locks that a database flush waits for."""
    from mase_web.runs.models import RunEvent
    from mase_web.runs.recorder import RunEventRecorder
    from training.events import EventStream

    run = Run.objects.create(project=team[0], name="doomed", spec=quick_spec())
    stream = EventStream()
    recorder = RunEventRecorder(run.pk, flush_interval=60).attach(stream)
    try:
        stream.emit("started", resumed_from=None)
        recorder.flush()
        assert RunEvent.objects.filter(run_id=run.pk).count() == 1
        Run.objects.filter(pk=run.pk).delete()
        stream.emit("metrics", step=1)
        assert recorder.flush() == 0 and recorder.gone
        stream.emit("metrics", step=2)
        assert recorder.flush() == 0
        assert not RunEvent.objects.filter(run_id=run.pk).exists()
    finally:
        recorder.close()


@pytest.mark.django_db(transaction=True)
def test_the_end_of_a_run_is_stored_with_its_state(team):
    """A worker killed right after recording `finished` must not leave a running run that a later
    delivery trains again (and ends a second time)."""
    from mase_web.runs.execution import claim
    from mase_web.runs.recorder import RunEventRecorder
    from training.events import EventStream

    run = Run.objects.create(project=team[0], name="ending", spec=quick_spec())
    assert claim(run.pk, "t1") is not None
    stream = EventStream()
    recorder = RunEventRecorder(run.pk, flush_interval=60).attach(stream)
    try:
        stream.emit("started", resumed_from=None)
        stream.emit("finished", status="succeeded", metrics={"success": 0.9}, episode=64)
        # no finish() here: the worker "dies" before execute() records the outcome
        run.refresh_from_db()
        assert run.state == "succeeded" and run.finished_at is not None and run.metrics == {"success": 0.9}
        assert claim(run.pk, "t2") is None  # a redelivery finds it ended
    finally:
        recorder.close()
