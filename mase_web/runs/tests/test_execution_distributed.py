"""A run whose spec asks for 2 processes: the Celery job starts them through torch's elastic launcher,
rank 0's events reach the database as one continuous sequence, with per-rank throughput; a spec asking
for GPUs is refused on the cpu queue; the gpu queue trains a default spec on CUDA when there is one."""

from __future__ import annotations

import pytest
import torch

from mase_web.accounts.models import Role
from mase_web.runs.execution import spec_for_queue
from mase_web.runs.models import Run, RunEvent
from mase_web.runs.tests.conftest import assert_continuous, quick_spec, wait_for_state
from mase_web.runs.tests.test_execution import launch

live = pytest.mark.services
slow = pytest.mark.slow  # two MiniLM-backed ranks on the shared machine: ~60 s
db = pytest.mark.django_db(transaction=True)


def test_the_gpu_queue_trains_a_default_cpu_spec_on_cuda_when_the_worker_has_it():
    spec = quick_spec()
    assert spec_for_queue(spec, "cpu") is spec
    on_gpu = spec_for_queue(spec, "gpu")
    assert on_gpu["training"]["device"] == ("cuda" if torch.cuda.is_available() else "cpu")
    assert spec["training"]["device"] == "cpu"  # the stored spec is not changed
    explicit = quick_spec(device="auto")
    assert spec_for_queue(explicit, "gpu") is explicit


@live
@slow
@db
def test_two_process_run_streams_rank_zero_events_with_per_rank_throughput(live_services, team):
    project, users = team
    spec = quick_spec(episodes=1280, checkpoint_every=640)
    spec["resources"] = {"processes": 2}
    run_id = launch(users[Role.PRODUCT_MANAGER], project, spec)
    run = wait_for_state(run_id, {"succeeded", "failed"}, timeout=300)
    assert run.state == "succeeded", run.error
    assert_continuous(run_id)
    events = list(RunEvent.objects.filter(run_id=run_id).order_by("seq"))
    assert events[0].type == "started" and events[-1].type == "finished"
    trained = [e.payload for e in events if e.type == "metrics" and "loss" in e.payload]
    assert trained and all("rank1_episodes_per_second" in m for m in trained)
    assert trained[-1]["episode"] == 1280  # episodes counted over both ranks
    assert run.checkpoints.count() >= 2


@live
@slow
@db
def test_a_spec_asking_for_gpus_is_refused_on_the_cpu_queue(live_services, team):
    project, users = team
    spec = quick_spec(episodes=64, device="auto")
    spec["resources"] = {"processes": 1, "devices": 1}
    run_id = launch(users[Role.PRODUCT_MANAGER], project, spec)
    run = wait_for_state(run_id, {"succeeded", "failed"})
    assert run.state == Run.State.FAILED and "gpu queue" in run.error
