"""training.baselines: which teams have baselines, every arm on the same held-out episodes, the verdict
before the run's "finished", and (slow) the whole comparison on a small budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.spec import load_spec
from training.baselines import (
    EVALUATION_SEED,
    evaluation_env,
    has_baselines,
    play_episodes,
    rules_policy,
    run_baselines,
    train_with_baselines,
)
from training.event_payloads import payload_problems
from training.events import EventStream, RunStage
from training.trainer import TrainResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def template(name: str, **training) -> dict:
    doc = json.loads((EXAMPLES / f"{name}.json").read_text())
    doc["training"].update(training)
    return doc


@pytest.mark.parametrize(
    "name, expected",
    [
        ("customer_service", True),
        ("research_report", True),
        ("collaborative_writing", True),
        ("code_generation", True),
        ("interactive_support", True),
        ("number_guessing", False),  # no rule procedure: its only actions are guesses
        ("number_guess_n64", False),
    ],
)
def test_which_templates_have_baselines(name, expected):
    assert has_baselines(template(name)) is expected


def test_an_algorithm_without_step_by_step_checkpoints_has_none():
    assert has_baselines(template("code_generation", algorithm="ippo"))
    doc = template("code_generation")
    doc["training"] = {"algorithm": "reinforce_comm"}
    assert not has_baselines(doc)


def test_every_arm_plays_the_same_held_out_episodes():
    """The rules twice on fresh environments give the same per-episode scores: episode k is fixed by its
    seed, whoever plays it; and the evaluation environment is the test split, not the training one."""
    from agents.envs.code_generation.tasks import load_tasks

    team = load_spec(template("code_generation"), require_environment=True)
    env = evaluation_env(team)
    assert {t.id for t in env.tasks} == {t.id for t in load_tasks(split="test")}
    first = play_episodes(env, rules_policy(team), 12)
    again = play_episodes(evaluation_env(team), rules_policy(team), 12)
    assert first == again
    assert len(first.scores) == 12 and all(0.0 <= s <= 1.0 for s in first.scores)
    assert all(c >= 1 for c in first.costs)  # steps taken
    other = play_episodes(env, rules_policy(team), 12, seed=EVALUATION_SEED + 500)
    assert other != first  # other seeds are other episodes


def test_the_baselines_progress_counts_episodes_so_a_long_arm_moves_the_bar(tmp_path, monkeypatch):
    """Counted in arms, the bar of a large team stood at "1 / 3 arms, estimating…" for minutes."""
    import training.baselines as baselines

    scripted = lambda team, *args, **kwargs: rules_policy(team)  # noqa: E731 (no checkpoint or cloning here)
    monkeypatch.setattr(baselines, "served_checkpoint", lambda run_dir: None)
    monkeypatch.setattr(baselines, "imitation_policy", scripted)
    monkeypatch.setattr(baselines, "checkpoint_policy", scripted)
    advanced = []
    stage_advance = RunStage.advance
    monkeypatch.setattr(
        RunStage, "advance", lambda self, by=1: (advanced.append(by), stage_advance(self, by))
    )
    seen = []
    run_baselines(
        template("code_generation"),
        tmp_path,
        events=EventStream([seen.append]),
        backbone=object(),
        episodes=3,
    )
    progress = [e.payload for e in seen if e.type == "progress" and e.payload["phase"] == "baselines"]
    assert progress[0]["unit"] == "episodes" and progress[0]["total"] == 9  # rules, imitation, mappo
    assert progress[-1]["state"] == "done" and progress[-1]["done"] == 9
    assert advanced == [1] * 9


def fake_train(status: str):
    def train(spec, out_dir, *, events, should_stop):
        events.emit("started", algorithm="mappo")
        events.emit("finished", status=status, metrics={"success": 0.5})
        return TrainResult(status, 10, 1, 0.1, {"success": 0.5})

    return train


def test_the_runs_finished_event_stays_last_and_a_run_without_baselines_gets_no_verdict(tmp_path):
    seen = []
    result = train_with_baselines(
        fake_train("succeeded"), template("number_guessing"), tmp_path, events=EventStream([seen.append])
    )
    assert result.status == "succeeded"
    assert [e.type for e in seen] == ["started", "finished"]
    assert [e.seq for e in seen] == [1, 2]
    assert seen[-1].payload == {"status": "succeeded", "metrics": {"success": 0.5}}


def test_a_cancelled_run_is_not_judged(tmp_path):
    seen = []
    train_with_baselines(
        fake_train("cancelled"), template("code_generation"), tmp_path, events=EventStream([seen.append])
    )
    assert [e.type for e in seen] == ["started", "finished"]


def test_baselines_that_fail_are_logged_and_the_run_still_finishes(tmp_path):
    """A succeeded run with no checkpoint to load: the baselines fail, the run's stream says so in a log
    line and still ends with its own `finished`."""
    seen = []
    result = train_with_baselines(
        fake_train("succeeded"),
        template("code_generation", eval_episodes=2),
        tmp_path / "empty",
        events=EventStream([seen.append]),
    )
    assert result.status == "succeeded"
    types = [e.type for e in seen]
    assert types[0] == "started" and types[-1] == "finished" and "verdict" not in types
    logs = [e.payload["message"] for e in seen if e.type == "log"]
    assert any(m.startswith("the baselines could not be evaluated") for m in logs), logs


@pytest.mark.slow  # trains MAPPO briefly and clones the rules: ~40 s on the shared 2-core machine
def test_run_baselines_on_a_small_budget(tmp_path):
    from training import api

    doc = template("code_generation", episodes=64, eval_every=0, checkpoint_every=0)
    api.train(doc, tmp_path, resume=False)
    seen = []
    verdict = run_baselines(doc, tmp_path, events=EventStream([seen.append]), episodes=12)
    assert [a.name for a in verdict.arms] == ["rules", "imitation", "mappo"]
    assert all(a.episodes == 12 and a.low <= a.mean <= a.high for a in verdict.arms)
    assert verdict.baseline in ("rules", "imitation") and verdict.sentence
    event = seen[-1]
    assert event.type == "verdict" and payload_problems("verdict", event.payload) == []
    assert event.payload["episodes"] == 12 and event.payload["split"] == "test"
    # the rules arm is the scripted team on the same episodes, whatever else ran before it
    team = load_spec(doc, require_environment=True)
    rules = play_episodes(evaluation_env(team), rules_policy(team), 12)
    assert verdict.arms[0].mean == pytest.approx(sum(rules.scores) / 12)


def test_imitation_is_the_templates_own_clone_of_its_teacher_where_it_declares_one(tmp_path):
    """The interactive template's MAPPO starts from a clone of its rules (decision 0036): the imitation arm is
    that same start, so it resolves most held-out customers (behaviour cloning of 400 episodes did not)."""
    import torch

    from training.baselines import imitation_policy

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        doc = template("interactive_support", teacher_clone_episodes=300, eval_every=0, checkpoint_every=0)
        team = load_spec(doc, require_environment=True)
        seen = []
        policy = imitation_policy(team, None, tmp_path, events=EventStream([seen.append]), episodes=0)
        played = play_episodes(evaluation_env(team), policy, 20)
    finally:
        torch.set_num_threads(threads)
    assert any("teacher clone" in str(e.payload.get("message", "")) for e in seen)
    assert sum(played.scores) / 20 >= 0.6
