"""A routing team trained on a dataset is judged on that dataset's own test split (training.baselines.
evaluation_params): the rules, the plain classifier and the learned team play ``NAME.test``, never the shipped
test tickets (whose intents a catalogue of one's own does not have: the verdict used to stop at its first
ticket). Without a test split the baselines say so before any arm is played."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents import places
from agents.spec import load_spec
from tests.agents.envs.test_intent_catalogue import AGENTS, HELPDESK, helpdesk_rows
from tests.training.test_plain_arm import WordHashes
from training.baselines import evaluation_env, evaluation_params, plain_policy, play_episodes, rules_policy

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service.json"


@pytest.fixture
def datasets_dir(tmp_path: Path):
    folder = tmp_path / "customer_service"
    folder.mkdir()
    saved = places.places()
    places.configure(None, None, None, tmp_path)
    yield folder
    places.configure(saved.models_dir, saved.tickets_dir, saved.runs_dir, saved.datasets_dir)


def write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def helpdesk_team(tickets: str = "helpdesk"):
    doc = json.loads(EXAMPLE.read_text())
    doc["environment"]["params"] = {"tickets": tickets, "intents": HELPDESK}
    doc["agents"], doc["edges"] = AGENTS, []
    doc.pop("fallback")  # its keyword rules route to the shipped roster; a catalogue's own is built from it
    return load_spec(doc, require_environment=True)


def test_a_dataset_team_is_judged_on_its_own_test_split(datasets_dir):
    rows = helpdesk_rows()
    write(datasets_dir / "helpdesk.jsonl", rows[::2])
    write(datasets_dir / "helpdesk.validation.jsonl", rows[1::4])
    test_rows = rows[3::4]
    write(datasets_dir / "helpdesk.test.jsonl", test_rows)
    team = helpdesk_team()
    assert evaluation_params(team) == {"tickets": "helpdesk.test"}
    env = evaluation_env(team)
    assert sorted(t.text for t in env.tickets) == sorted(r["text"] for r in test_rows)
    rules = play_episodes(evaluation_env(team), rules_policy(team), 12)
    plain = play_episodes(evaluation_env(team), plain_policy(team, WordHashes()), 12)
    assert len(rules.scores) == len(plain.scores) == 12
    assert np.mean(plain.scores) > 0  # it reads the helpdesk intents, not the shipped ones


def test_without_a_test_split_the_baselines_say_so(datasets_dir):
    write(datasets_dir / "helpdesk.jsonl", helpdesk_rows())
    with pytest.raises(ValueError, match="no test split"):
        evaluation_params(helpdesk_team())


def test_the_shipped_catalogue_keeps_the_shipped_test_split():
    doc = json.loads(EXAMPLE.read_text())
    assert evaluation_params(load_spec(doc, require_environment=True)) == {"tickets": "test"}
