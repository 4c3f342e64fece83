"""A server's runtime opens no path a stored spec gives: `TeamRuntime.from_spec_checkpoint(names_only=True)`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.places import SHIPPED_DATA
from agents.spec import load_spec
from serving.runtime import TeamRuntime

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "customer_service.json"


class Reached(Exception):
    """The runtime went on to build the team."""


class UntouchableBackbone:
    """A backbone that says so when the runtime reaches for it (nothing past the check may touch it)."""

    def __getattr__(self, name: str):
        raise Reached(name)


def spec_with_ticket_path() -> dict:
    """The shipped team reading its tickets from a path: a real file, so only the check can refuse it."""
    doc = json.loads(EXAMPLE.read_text())
    doc["environment"]["params"]["tickets"] = str(SHIPPED_DATA / "customer_service" / "train.jsonl")
    return doc


def test_a_server_runtime_refuses_a_spec_that_gives_a_path_before_opening_anything():
    team = load_spec(spec_with_ticket_path(), require_environment=True)  # a user's machine accepts it
    missing = "/nonexistent/checkpoint"
    with pytest.raises(ValueError, match=r"^\$\.environment\.params\.tickets: .*paths are not accepted"):
        TeamRuntime.from_spec_checkpoint(team, missing, backbone=UntouchableBackbone(), names_only=True)
    # Without the check the same call goes on to build the team: the check is what refused.
    with pytest.raises(Reached):
        TeamRuntime.from_spec_checkpoint(team, missing, backbone=UntouchableBackbone())


def test_a_server_runtime_passes_a_spec_that_names_its_files():
    team = load_spec(json.loads(EXAMPLE.read_text()), require_environment=True)
    with pytest.raises(Reached):  # past the check, on to building the team
        TeamRuntime.from_spec_checkpoint(
            team, "/nonexistent/checkpoint", backbone=UntouchableBackbone(), names_only=True
        )
