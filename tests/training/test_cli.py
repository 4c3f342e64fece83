"""`mase validate / train / eval`: exit codes and one-line errors for bad input."""

from __future__ import annotations

import json

from tests.training.test_reinforce_comm import spec_doc
from training.cli import build_parser, main


def test_validate_reports_paths_and_exit_codes(tmp_path, capsys):
    good, bad, broken = tmp_path / "good.json", tmp_path / "bad.json", tmp_path / "broken.json"
    good.write_text(json.dumps(spec_doc()))
    doc = spec_doc()
    doc["agents"][0]["lora"] = {"r": 0}
    bad.write_text(json.dumps(doc))
    broken.write_text("{")
    assert main(["validate", str(good)]) == 0
    assert main(["validate", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "$.agents[0].lora.r" in out
    assert main(["validate", str(broken)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_train_then_eval_and_bad_backbone_is_one_line(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(spec_doc(episodes=64)))
    assert main(["train", str(spec), "--out", str(tmp_path / "run"), "--quiet"]) == 0
    assert (tmp_path / "run" / "events.jsonl").is_file()
    capsys.readouterr()
    assert main(["eval", str(tmp_path / "run"), "--episodes", "50", "--json"]) == 0
    assert 0 <= json.loads(capsys.readouterr().out)["success"] <= 1
    doc = spec_doc(episodes=64)
    doc["backbone"] = {"model": str(tmp_path / "no-such-model")}
    spec.write_text(json.dumps(doc))
    assert main(["train", str(spec), "--out", str(tmp_path / "run2"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "not a local directory" in err and "Traceback" not in err
    assert main(["eval", str(tmp_path / "missing")]) == 2


def test_set_episodes_is_the_training_budget(tmp_path, capsys):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(spec_doc(episodes=640)))
    assert main(["train", str(spec), "--out", str(tmp_path / "run"), "--quiet", "--set", "episodes=64"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["episodes"] == 64  # not the spec's 640


def test_other_modules_register_commands():
    commands = build_parser()._subparsers._group_actions[0].choices
    assert {"validate", "train", "eval", "submit", "follow"} <= set(commands)


def test_envs_lists_each_environments_parameters(capsys):
    assert main(["envs", "customer_service", "--json"]) == 0
    params = {p["name"]: p for p in json.loads(capsys.readouterr().out)["customer_service"]}
    assert params["delayed_reward"]["default"] is False and params["max_steps"]["kind"] == "integer"
    assert main(["envs"]) == 0
    tables = capsys.readouterr().out
    assert all(name in tables for name in ("number_guess", "customer_service", "research_report"))
    assert "delayed_reward" in tables and "supervisor_view" in tables
    assert main(["envs", "chess"]) == 2
    assert "unknown environment 'chess'" in capsys.readouterr().err
