"""The catalogue serves the spec's defaults as the library fills them in, so the designer's editors show
what a spec that leaves a setting out will get, without typing the numbers a second time."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from agents.spec import load_spec
from mase_web.accounts.models import Role

pytestmark = pytest.mark.django_db


def test_catalogue_defaults_are_what_loading_a_bare_spec_fills_in(team):
    *_, users, _ = team
    client = APIClient()
    client.force_authenticate(users[Role.OPERATOR])
    defaults = client.get("/api/workflows/catalogue/").json()["defaults"]

    # A spec with one agent and nothing else, loaded by the library: every default written out.
    loaded = load_spec({"name": "bare", "agents": [{"id": "a", "role": "custom", "prompt": "p"}]}).to_dict()
    for section in ("circuit_breaker", "evolution", "curriculum", "backbone", "fallback", "training"):
        assert defaults[section] == loaded[section], section
    agent = loaded["agents"][0]
    assert defaults["agent"] == {k: agent[k] for k in ("lora", "policy_head", "update_period")}
    # The figures the editors show for an empty section (the designer's Safety tab, a new agent's adapter).
    assert defaults["circuit_breaker"]["cooldown_s"] == 30.0 and defaults["agent"]["lora"]["r"] == 4
