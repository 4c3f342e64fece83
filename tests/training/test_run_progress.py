"""Every stage of a run reports its progress ("progress" events, `training.events.RunStage`): the
customer-service team's whole recipe (clause readers, expert episodes, cloning, critic warm-up, PPO,
evaluation, calibration) and the number-guessing team, each trained for a moment through
`training.api.train`, are never silent for long and say how far each stage is and how long is left."""

from __future__ import annotations

import json
import time
from pathlib import Path

import torch

from agents.backbone import Backbone
from tests.fixtures.tiny_models import build_tiny_causal_lm
from tests.training.test_spec_warm_start import small_spec
from training.api import train
from training.cli import main, time_left
from training.event_payloads import payload_problems
from training.events import PROGRESS_EVERY_S, Event, EventStream

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CUSTOMER_SERVICE_STAGES = {
    "preparing",
    "reader_texts",
    "reader_fit",
    "expert_episodes",
    "cloning_data",
    "cloning",
    "critic_warmup",
    "training",
    "evaluation",
    "calibration",
}
# the longest quiet stretch allowed: the ticker's period, with room for a busy shared machine
LONGEST_SILENCE_S = 2 * PROGRESS_EVERY_S + 1.0


def heard(run) -> list[tuple[float, object]]:
    """Run `run(stream)` and return every event with the time it arrived."""
    events: list[tuple[float, object]] = []
    run(EventStream([lambda event: events.append((time.monotonic(), event))]))
    return events


def check_progress(events: list[tuple[float, object]]) -> dict[str, list[dict]]:
    """The shared rules of a run's progress; returns each stage's progress payloads."""
    kinds = [e.type for _, e in events]
    undeclared = [problem for _, e in events for problem in payload_problems(e.type, e.payload)]
    assert not undeclared, undeclared[:5]  # every payload as `training.event_payloads` declares it
    assert kinds[-1] == "finished" and kinds.count("finished") == 1, kinds[-5:]
    gaps = [later - earlier for (earlier, _), (later, _) in zip(events, events[1:], strict=False)]
    assert max(gaps) <= LONGEST_SILENCE_S, f"silent for {max(gaps):.1f} s"
    stages: dict[str, list[dict]] = {}
    for _, event in events:
        if event.type == "progress":
            stages.setdefault(event.payload["phase"], []).append(event.payload)
    for phase, reports in stages.items():
        # a stage may run several times (evaluation): each run starts at its own "done" and ends
        runs, current = [], []
        for report in reports:
            current.append(report)
            if report["state"] != "running":
                runs.append(current)
                current = []
        assert not current, f"{phase} never said it ended"
        for one in runs:
            done = [r["done"] for r in one]
            assert done == sorted(done), f"{phase} went back: {done}"
            assert all(0 <= r["done"] <= r["total"] for r in one), phase
            assert all(r["eta_s"] is None or r["eta_s"] >= 0 for r in one), phase
            assert all(r["elapsed_s"] >= 0 and r["unit"] and r["label"] for r in one), phase
            assert one[-1]["state"] == "done" and one[-1]["done"] == one[-1]["total"], one[-1]
            assert one[-1]["eta_s"] == 0
    return stages


def test_every_stage_of_the_customer_service_recipe_reports_its_progress(tmp_path):
    torch.set_num_threads(1)
    backbone = Backbone.load(str(build_tiny_causal_lm(tmp_path / "lm")), pooling="mean", max_length=32)
    doc = small_spec(tmp_path, backbone)
    doc["environment"]["params"] |= {"reader": "clause_keywords", "warm_start_epochs": 2}
    doc["training"] |= {
        "episodes": 8,
        "eval_every": 4,
        "eval_episodes": 4,
        "checkpoint_every": 4,
        "critic_warmup_episodes": 4,
    }
    events = heard(lambda stream: train(doc, tmp_path / "run", events=stream, backbone=backbone))
    stages = check_progress(events)
    assert set(stages) == CUSTOMER_SERVICE_STAGES
    # the PPO stages count the run's episodes: 4 of critic warm-up, then the other 4
    assert stages["critic_warmup"][-1]["total"] == 4 and stages["training"][-1]["total"] == 4
    assert all(r["unit"] == "episodes" for r in stages["training"])
    assert stages["reader_fit"][-1]["total"] == doc["environment"]["params"]["reader_epochs"]
    # calibration is part of the run: it reports before the run's end, whose metrics carry its result
    finished = events[-1][1]
    assert "calibration_error" in finished.payload["metrics"]


def test_mase_train_shows_a_bar_per_stage_of_a_number_guessing_run(tmp_path, capsys):
    doc = json.loads((EXAMPLES / "number_guessing.json").read_text())
    doc["training"] |= {"episodes": 512, "batch_size": 32, "eval_every": 256, "eval_episodes": 64}
    (tmp_path / "spec.json").write_text(json.dumps(doc))
    assert main(["train", str(tmp_path / "spec.json"), "--out", str(tmp_path / "run")]) == 0
    lines = (tmp_path / "run" / "events.jsonl").read_text().splitlines()
    events = [(row["time"], Event(**row)) for row in map(json.loads, lines)]
    stages = check_progress(events)
    assert set(stages) == {"reader_texts", "training", "evaluation"}
    assert stages["training"][-1]["total"] == 512
    # at the start, every 256 episodes and the end
    assert len([r for r in stages["evaluation"] if r["state"] == "done"]) == 4
    shown = capsys.readouterr().out
    assert "Training" in shown and "512/512 episodes" in shown and "done in" in shown


def test_the_time_left_reads_as_words():
    report = {"state": "running", "eta_s": 75.4, "elapsed_s": 3.0}
    assert time_left(report) == "about 75 s left"
    assert time_left(report | {"eta_s": 400.0}) == "about 6 min 40 s left"
    assert time_left(report | {"eta_s": None}) == "estimating…"
    assert time_left(report | {"state": "done", "elapsed_s": 12.6}) == "done in 13 s"


def test_a_stage_reports_at_a_bounded_rate_and_extrapolates_its_rate():
    reports: list[dict] = []
    stream = EventStream([lambda event: reports.append(event.payload)])
    with stream.stage("work", "Working", 10_000, "items", start=2_000) as stage:
        for _ in range(8_000):
            stage.advance()  # far faster than the period: only the first and the last are reported
    assert [r["done"] for r in reports] == [2_000, 10_000]
    assert reports[0]["eta_s"] is None  # nothing done by this process yet: no rate to extrapolate
    assert reports[-1]["state"] == "done" and reports[-1]["eta_s"] == 0
    half = stream.stage("work", "Working", 10, "items")
    half.advance()  # the first unit holds the start-up: no rate yet
    assert half.payload()["eta_s"] is None
    when, first = half._first
    half._first = (when - 4.0, first)  # four seconds after the first unit, five done: 4 units in 4 s, 5 left
    half.done = 5
    assert abs(half.payload()["eta_s"] - 5.0) < 0.1


def test_the_time_left_leaves_out_the_start_up_of_the_first_unit():
    """A first update slowed by loading (45 s, then 3 s an update) promised ~44 min for a run of ~3 min."""
    reports: list[dict] = []
    stream = EventStream([lambda event: reports.append(event.payload)])
    stage = stream.stage("training", "Training", 960, "episodes")
    stage._started -= 45.0  # the first update: the backbone loads, caches fill
    stage.advance(16)
    assert stage.payload()["eta_s"] is None  # not 45 s · 944 / 16 = 2,655 s
    when, done = stage._first
    stage._first = (when - 3.0, done)  # one steady update since
    stage.advance(16)
    assert abs(stage.payload()["eta_s"] - 3.0 * 928 / 16) < 1.0  # about 3 min, as the run took


def test_a_stage_left_early_says_it_stopped_and_the_ticker_stops_with_it():
    reports: list[dict] = []
    stream = EventStream([lambda event: reports.append(event.payload)])
    try:
        with stream.stage("work", "Working", 3, "items") as stage:
            stage.advance()
            time.sleep(1.6 * PROGRESS_EVERY_S)  # a long step: the ticker repeats the progress meanwhile
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert reports[-1]["state"] == "stopped" and reports[-1]["done"] == 1
    assert any(r["state"] == "running" and r["done"] == 1 and r["elapsed_s"] >= 1 for r in reports)
    count = len(reports)
    time.sleep(1.5 * PROGRESS_EVERY_S)
    assert len(reports) == count  # nothing after the end
