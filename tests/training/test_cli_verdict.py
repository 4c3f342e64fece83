"""`mase verdict RUN`: a run beside its baselines from the command line; a team without baselines is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from training.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_a_team_without_baselines_is_refused_in_one_line(tmp_path, capsys):
    (tmp_path / "spec.json").write_text((EXAMPLES / "number_guessing.json").read_text())
    assert main(["verdict", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "has no baselines" in err and "Traceback" not in err
    assert main(["verdict", str(tmp_path / "missing")]) == 2


def test_a_run_without_a_checkpoint_is_one_line(tmp_path, capsys):
    (tmp_path / "spec.json").write_text((EXAMPLES / "code_generation.json").read_text())
    assert main(["verdict", str(tmp_path)]) == 2
    assert "no MAPPO/IPPO checkpoint" in capsys.readouterr().err


@pytest.mark.slow  # trains MAPPO briefly, clones the rules and plays three arms: ~40 s on the shared machine
def test_train_then_verdict(tmp_path, capsys):
    doc = json.loads((EXAMPLES / "code_generation.json").read_text())
    doc["training"].update(episodes=64, eval_every=0, checkpoint_every=0)
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(doc))
    assert main(["train", str(spec), "--out", str(tmp_path / "run"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["verdict", str(tmp_path / "run"), "--episodes", "6", "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert [a["name"] for a in verdict["arms"]] == ["rules", "imitation", "mappo"]
    assert verdict["sentence"] and all(a["episodes"] == 6 for a in verdict["arms"])
