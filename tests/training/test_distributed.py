"""Data-parallel training (training.distributed): collectives, the launcher, the 2-process gloo group,
elastic restart with a continuous event sequence, the spec's resources section, and the GPU path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from dataclasses import asdict
from pathlib import Path

import pytest
import torch

from agents.spec import load_spec, validate_spec
from training import distributed
from training.api import train
from training.checkpoint import latest_checkpoint, load_tensors
from training.events import EventStream

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]


def spec_doc(episodes=640, processes=1, **training):
    agents = ["clue_0", "clue_1", "distractor_0"]
    return {
        "name": "small number guessing",
        "agents": [{"id": a, "role": "custom", "prompt": "Share your clue."} for a in agents]
        + [{"id": "guesser", "role": "guesser", "prompt": "Name the number."}],
        "edges": [{"source": a, "target": "guesser", "kind": "communication"} for a in agents],
        "environment": {"name": "number_guess", "params": {"n": 4, "informative": 2, "distractors": 1}},
        "training": {
            "episodes": episodes,
            "seed": 3,
            "entropy_coef": 0.05,
            "eval_every": 320,
            "eval_episodes": 64,
            "checkpoint_every": 320,
            **training,
        },
        "resources": {"processes": processes},
    }


def run_two_ranks(probe: str, *args: Path, timeout: float = 300) -> None:
    """Start tests/training/`probe` as 2 gloo ranks under torch's launcher (its output kept from the test's).

    The launcher may restart the group once, as the product's launch does (`max_restarts`): a rank lost to
    the machine (a port taken between the launcher's choice and the bind, the OOM killer) is the elastic
    restart's job, not a wrong result. A restart is reported as a warning with the ranks' output."""
    done = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2"]
        + ["--max-restarts=1", str(ROOT / "tests" / "training" / probe), *map(str, args)],
        cwd=ROOT,
        timeout=timeout,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"},
    )
    # The ranks' own tracebacks are the only clue to a failure on another machine: show their tails.
    output = f"{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
    assert done.returncode == 0, f"ranks exited {done.returncode}\n{output}"
    if "will restart worker group" in done.stderr:
        warnings.warn(f"the 2-rank group of {probe} was restarted once:\n{output}", stacklevel=2)


def events_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_single_process_collectives_change_nothing():
    group = distributed.SINGLE
    p = torch.nn.Parameter(torch.ones(3))
    p.grad = torch.full((3,), 2.0)
    assert distributed.average_gradients(group, [p], (1.5, 0.25)) == (1.5, 0.25)
    assert torch.equal(p.grad, torch.full((3,), 2.0))
    assert distributed.any_true(group, True) and not distributed.any_true(group, False)
    assert distributed.gather_floats(group, 7.0) == [7.0]
    assert distributed.mean_metrics(group, {"success": 0.5, "m": [[1.0]]}) == {"success": 0.5, "m": [[1.0]]}
    assert distributed.rank_seed(5, group) == 5
    assert distributed.join("cpu") == group  # no WORLD_SIZE in the environment: no process group


def test_launch_command_standalone_and_multi_node(tmp_path):
    local = distributed.launch_command(tmp_path, 2, max_restarts=2)
    assert local[1:4] == ["-m", "torch.distributed.run", "--standalone"]
    assert (
        "--nproc-per-node=2" in local
        and "--max-restarts=2" in local
        and "training.distributed_worker" in local
    )
    assert "--fresh" not in local and distributed.launch_command(tmp_path, 2, fresh=True)[-1] == "--fresh"
    nodes = distributed.launch_command(
        tmp_path, 4, rendezvous={"nnodes": 2, "endpoint": "head:29400", "id": "run7"}
    )
    assert "--standalone" not in nodes
    assert {"--nnodes=2", "--rdzv-backend=c10d", "--rdzv-endpoint=head:29400", "--rdzv-id=run7"} <= set(nodes)


def test_resources_section_is_validated_with_clear_errors():
    assert load_spec(spec_doc()).resources.processes == 1
    assert load_spec(spec_doc(processes=2)).resources.processes == 2
    doc = spec_doc()
    doc["resources"] = {"processes": 0, "devices": 2, "gpus": 1}
    errors = {e.path: e.message for e in validate_spec(doc)}
    assert "unknown key" in errors["$.resources.gpus"]
    assert "between 1 and 64" in errors["$.resources.processes"]
    assert 'training.device "cuda"' in errors["$.resources.devices"]
    doc = spec_doc(processes=2, algorithm="ippo")  # PPO teams are data-parallel too
    assert "$.resources.processes" not in {e.path for e in validate_spec(doc)}
    doc = spec_doc(processes=2, algorithm="mappo")
    doc["communication"] = {"enabled": True, "protocol": "hcp"}
    assert "hcp" in {e.path: e.message for e in validate_spec(doc)}["$.resources.processes"]
    doc = spec_doc(device="cuda")
    doc["resources"] = {"processes": 1, "devices": 2}
    assert "set processes to 2" in {e.path: e.message for e in validate_spec(doc)}["$.resources.devices"]


@pytest.mark.slow  # two launches of MiniLM-backed ranks: ~40 s on the shared 2-core machine
def test_one_process_through_the_launcher_equals_the_in_process_trainer(tmp_path):
    doc = spec_doc()
    direct = train(doc, tmp_path / "direct")
    relayed: list[dict] = []
    launched = distributed.launch(
        load_spec(doc).to_dict(), tmp_path / "launched", 1, on_event=relayed.append, max_restarts=0
    )
    assert launched["status"] == "succeeded" and launched["metrics"] == asdict(direct)["metrics"]
    assert (launched["episodes"], launched["updates"]) == (direct.episodes, direct.updates)
    a = latest_checkpoint(tmp_path / "direct" / "checkpoints")
    b = latest_checkpoint(tmp_path / "launched" / "checkpoints")
    for name in ("heads", "comm", "optimizer", "rng"):
        left, right = load_tensors(a / f"{name}.safetensors"), load_tensors(b / f"{name}.safetensors")
        assert left.keys() == right.keys() and all(torch.equal(left[k], right[k]) for k in left), name
    strip = {"seconds", "backbone", "path", "duration_s"}  # wall times and where files went

    def comparable(events):  # progress reports are paced by the wall clock, so their number varies
        return [
            (e["type"], {k: v for k, v in e["payload"].items() if k not in strip})
            for e in events
            if e["type"] != "progress"
        ]

    assert comparable(events_of(tmp_path / "direct" / "events.jsonl")) == comparable(relayed)


def test_ranks_of_one_machine_average_gradients_through_shared_memory_as_gloo_would(tmp_path):
    out = tmp_path / "sum.json"
    run_two_ranks("_dist_sum_probe.py", out, timeout=120)
    report = json.loads(out.read_text())
    assert report["shared_memory"]  # both ranks on this machine: the gloo TCP all-reduce is bypassed
    assert len(report["calls"]) == 5  # repeated calls alternate buffers; a longer vector remaps them
    for call in report["calls"]:
        assert call["equal_to_gloo"] and call["identical_on_ranks"] and call["extras"] == [0.5, 2.0]
    assert report["files_left"] == []  # the mapping's file is unlinked once both ranks hold it
    assert report["without_room"] == {"unavailable": True, "total": [0.0, 3.0, 6.0, 9.0, 12.0, 15.0]}


@pytest.mark.slow  # one 2-rank launch: ~25 s
def test_two_gloo_ranks_play_their_own_episodes_and_stay_identical(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(spec_doc()))
    out = tmp_path / "probe.json"
    run_two_ranks("_dist_probe.py", spec, out)
    report = json.loads(out.read_text())
    assert report["world_size"] == 2 and report["backend"] == "gloo"
    assert report["own_episodes"]  # seed + rank: the ranks sample different episodes
    assert report["same_start"] and report["moved"] and report["same_after_updates"]  # all-reduced
    assert report["updates"] == 3 and report["episode"] == 3 * 32 * 2  # episodes counted over the group


@pytest.mark.slow  # a 2-rank group that loses a rank and restarts: ~70 s
def test_two_processes_train_restart_after_a_crash_and_keep_one_event_sequence(tmp_path, monkeypatch):
    monkeypatch.setenv("MASE_DIST_FAIL", "1:960")  # rank 1 fails once, at episode 960
    received: list = []
    stream = EventStream([received.append], start_seq=41)  # the web's stream, after 41 stored events
    out = tmp_path / "run"
    result = train(spec_doc(episodes=1280, processes=2), out, events=stream)
    assert result.status == "succeeded" and result.episodes == 1280 and result.updates == 20
    assert [e.seq for e in received] == list(range(42, 42 + len(received)))  # continuous, no gap
    started = [e.payload for e in received if e.type == "started"]
    assert len(started) == 2 and started[0]["resumed_from"] is None and started[1]["resumed_from"] >= 320
    assert any(e.type == "log" and "restart 1" in e.payload["message"] for e in received)
    assert received[-1].type == "finished" and received[-1].payload["status"] == "succeeded"
    train_metrics = [e.payload for e in received if e.type == "metrics" and "loss" in e.payload]
    assert all({"rank0_episodes_per_second", "rank1_episodes_per_second"} <= set(m) for m in train_metrics)
    # rank 0 alone wrote the checkpoints and the result; rank 0's own log numbers events continuously too
    ckpt = latest_checkpoint(out / "checkpoints")
    assert json.loads((ckpt / "state.json").read_text())["episode"] == 1280
    assert json.loads((out / "result.json").read_text())["status"] == "succeeded"
    own = [e["seq"] for e in events_of(out / "distributed" / "events.jsonl")]
    assert own == list(range(1, len(own) + 1)) and len(own) == len(received)


@pytest.mark.skipif(
    not torch.cuda.is_available(),
    reason="CUDA not present: the GPU path (training on cuda, NCCL ranks) was not exercised on this machine",
)
def test_training_on_cuda(tmp_path):
    doc = spec_doc(episodes=320, device="cuda", eval_every=0, checkpoint_every=0)
    result = train(doc, tmp_path / "one")
    assert result.status == "succeeded" and result.episodes == 320
    if torch.cuda.device_count() >= 2:  # two ranks, one GPU each, gradients all-reduced by NCCL
        doc = spec_doc(episodes=640, device="cuda", processes=2, eval_every=0, checkpoint_every=0)
        doc["resources"]["devices"] = 2
        assert train(doc, tmp_path / "two").status == "succeeded"


@pytest.mark.slow  # one 2-rank launch: ~30 s
def test_a_stop_request_ends_both_ranks_after_the_same_update_with_a_checkpoint(tmp_path):
    received: list = []
    stream = EventStream([received.append])

    def should_stop() -> bool:  # the web's StopFlag: true once the run is cancelled
        return any(e.type == "metrics" and "loss" in e.payload for e in received)

    result = train(
        spec_doc(episodes=2_000_000, processes=2), tmp_path / "run", events=stream, should_stop=should_stop
    )
    assert result.status == "cancelled" and 0 < result.episodes < 2_000_000
    assert received[-1].type == "finished" and received[-1].payload["status"] == "cancelled"
    state = json.loads((latest_checkpoint(tmp_path / "run" / "checkpoints") / "state.json").read_text())
    assert state["episode"] == result.episodes
