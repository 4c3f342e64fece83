"""bench/verdicts.py covers every shipped template: each examples/*.json is measured, as a team beside its
rules and imitation or as number guessing against its messages cut."""

from __future__ import annotations

import json

import pytest

from bench.verdicts import EXAMPLES, GUESS_TEMPLATES, PPO_TEMPLATES
from training.baselines import has_baselines

SHIPPED = sorted(p.stem for p in EXAMPLES.glob("*.json"))


def test_every_shipped_template_gets_a_verdict():
    assert sorted([*PPO_TEMPLATES, *GUESS_TEMPLATES]) == SHIPPED


@pytest.mark.parametrize("name", PPO_TEMPLATES)
def test_each_ppo_template_has_rules_and_imitation_to_be_judged_against(name):
    assert has_baselines(json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", GUESS_TEMPLATES)
def test_each_guess_template_is_number_guessing(name):
    doc = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    assert doc["environment"]["name"] == "number_guess"
    assert doc["training"]["algorithm"] == "reinforce_comm"
