"""Data-parallel MAPPO (training.mappo with a training.distributed group): two gloo ranks on a small
customer-service team play their own episodes and end with identical networks; launched through
`training.api.train` (`resources.processes: 2`), rank 0 alone writes checkpoints, events and the result.

Only the probe launches customer-service ranks (their warm start on rank 0, broadcast to rank 1, is what it
checks); the event-sequence and restart tests use the small number-guessing team under MAPPO: the group's
bookkeeping is the same and each rank starts in seconds instead of a minute and a half."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from agents.spec import load_spec, validate_spec
from tests.training.test_distributed import run_two_ranks
from tests.training.test_distributed import spec_doc as number_guess_doc
from training.api import train
from training.events import EventStream
from training.mappo.from_spec import config_from_spec

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]


def spec_doc(processes=2, algorithm="mappo", **training):
    doc = json.loads((ROOT / "examples" / "customer_service.json").read_text())
    doc["training"].update(
        algorithm=algorithm,
        episodes=64,
        batch_size=8,
        eval_every=32,
        eval_episodes=8,
        checkpoint_every=32,
        critic_warmup_episodes=0,  # 4 updates in all: every one of them moves the actors across ranks
        **training,
    )
    doc["environment"]["params"].update(warm_start_episodes=40, reader_epochs=20, warm_start_epochs=2)
    doc["evolution"]["cycle_episodes"] = 32
    doc["resources"] = {"processes": processes}
    return doc


def small_mappo_doc() -> dict:
    """The 4-agent number-guessing team under MAPPO with the same budget: 4 updates of 2 × 8 episodes."""
    return number_guess_doc(
        episodes=64,
        processes=2,
        algorithm="mappo",
        batch_size=8,
        eval_every=32,
        eval_episodes=8,
        checkpoint_every=32,
        critic_warmup_episodes=0,
    )


def test_ppo_teams_may_ask_for_processes_and_count_their_budget_over_the_group():
    assert not [e for e in validate_spec(spec_doc()) if e.path == "$.resources.processes"]
    assert not [e for e in validate_spec(spec_doc(algorithm="ippo")) if e.path == "$.resources.processes"]
    from training.distributed import Group

    team = load_spec(spec_doc())
    one, two = config_from_spec(team), config_from_spec(team, Group(rank=1, world_size=2))
    assert (one.updates, two.updates) == (8, 4) and one.episodes_per_update == two.episodes_per_update == 8
    assert (one.eval_every, two.eval_every) == (4, 2) and (one.checkpoint_every, two.checkpoint_every) == (
        4,
        2,
    )
    assert two.lr == pytest.approx(one.lr * 2**0.5)


def test_the_collectives_mappo_adds_change_nothing_in_one_process():
    from training import distributed

    group = distributed.SINGLE
    assert distributed.gather_lists(group, [1.0, 0.0]) == [[1.0, 0.0]]
    stats = torch.tensor([0.5, 2.0])
    distributed.average_tensors(group, [stats])
    assert torch.equal(stats, torch.tensor([0.5, 2.0]))
    p = torch.nn.Parameter(torch.ones(2))
    assert distributed.average_gradients(group, [p], agree_on_missing=True) == () and p.grad is None
    two = [distributed.Group(rank=r, world_size=2) for r in (0, 1)]
    assert distributed.resume_seed(3, two[0], 5) != distributed.resume_seed(3, two[1], 5)
    assert distributed.resume_seed(3, two[1], 5) == distributed.resume_seed(3, two[1], 5)


@pytest.mark.slow  # one 2-rank launch of MiniLM-backed customer-service ranks
def test_two_gloo_mappo_ranks_play_their_own_episodes_and_stay_identical(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(spec_doc()))
    report_path = tmp_path / "probe.json"
    run_two_ranks("_dist_mappo_probe.py", spec, tmp_path / "run", report_path, timeout=600)
    report = json.loads(report_path.read_text())
    assert report["world_size"] == 2 and report["status"] == "succeeded"
    assert (report["episodes"], report["updates"]) == (64, 4)  # 4 updates of 2 × 8 episodes
    # rank 0 warm-started alone; the broadcast gave rank 1 its networks, and the all-reduced steps kept them equal
    assert report["same_start"] and report["moved"] and report["same_end"]
    seeds = report["seeds"]
    assert len(seeds[0]) == len(seeds[1]) == 32 and not set(seeds[0]) & set(seeds[1])  # their own episodes
    numbers = report["episode_numbers"]  # numbered over the group: rank 1 plays 8–15, 24–31, …
    assert numbers[1][:8] == list(range(8, 16)) and sorted(numbers[0] + numbers[1]) == list(range(64))
    assert report["levels"][0] == report["levels"][1]  # one curriculum level for the group
    assert report["saves"][0] > 0 and report["saves"][1] == 0  # rank 0 alone writes checkpoints


@pytest.mark.slow  # one 2-rank launch
def test_two_processes_through_train_write_once_and_keep_one_event_sequence(tmp_path):
    received: list = []
    stream = EventStream([received.append], start_seq=41)  # the web's stream, after 41 stored events
    out = tmp_path / "run"
    result = train(small_mappo_doc(), out, events=stream)
    assert result.status == "succeeded" and (result.episodes, result.updates) == (64, 4)
    assert [e.seq for e in received] == list(range(42, 42 + len(received)))  # continuous, no gap
    kinds = [e.type for e in received]
    assert kinds.count("started") == 1 and kinds[-1] == "finished"
    assert received[-1].payload["status"] == "succeeded"
    train_metrics = [e.payload for e in received if e.type == "metrics" and "policy_loss" in e.payload]
    assert [m["step"] for m in train_metrics] == [1, 2, 3, 4]
    assert all({"rank0_episodes_per_second", "rank1_episodes_per_second"} <= set(m) for m in train_metrics)
    assert [m["episode"] for m in train_metrics] == [16, 32, 48, 64]
    assert sum("val_return" in m for m in train_metrics) == 2  # rank 0 evaluated at updates 2 and 4
    saves = [Path(e.payload["path"]) for e in received if e.type == "checkpoint"]
    assert saves and {p.parent for p in saves} == {out / "checkpoints" / "mappo"}
    state = json.loads((out / "checkpoints" / "mappo" / "last" / "state.json").read_text())
    assert (state["episodes_done"], state["update_index"]) == (64, 4)
    assert sorted(p.name for p in (out / "checkpoints" / "mappo").iterdir()) == ["best", "last"]
    assert json.loads((out / "result.json").read_text())["status"] == "succeeded"
    own = [
        json.loads(line)["seq"] for line in (out / "distributed" / "events.jsonl").read_text().splitlines()
    ]
    assert own == list(range(1, len(own) + 1)) and len(own) == len(received)


@pytest.mark.slow  # a 2-rank group that loses a rank and restarts: two launches
def test_a_mappo_group_that_loses_a_rank_resumes_from_rank_0s_checkpoint(tmp_path, monkeypatch):
    monkeypatch.setenv("MASE_DIST_FAIL", "1:48")  # rank 1 fails once, after update 3 (episode 48)
    received: list = []
    out = tmp_path / "run"
    result = train(small_mappo_doc(), out, events=EventStream([received.append]))
    assert result.status == "succeeded" and (result.episodes, result.updates) == (64, 4)
    assert [e.seq for e in received] == list(range(1, len(received) + 1))
    started = [e.payload for e in received if e.type == "started"]
    assert len(started) == 2 and started[0]["resumed_from"] is None and started[1]["resumed_from"] == 2
    assert any(e.type == "log" and "restart 1" in e.payload["message"] for e in received)
    steps = [e.payload["step"] for e in received if e.type == "metrics" and "policy_loss" in e.payload]
    assert steps[-2:] == [3, 4]  # the restarted group went on from the checkpoint of update 2
    state = json.loads((out / "checkpoints" / "mappo" / "last" / "state.json").read_text())
    assert (state["episodes_done"], state["update_index"]) == (64, 4)
