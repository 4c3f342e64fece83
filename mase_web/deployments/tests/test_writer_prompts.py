"""A deployed customer-service team's reply writer tells each agent what the loader told it: an agent whose
spec names no prompt writes under the prompt derived from the intents it owns (a team with intents of its
own) or its role's, not a generic customer-service prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.roles import ROLES
from mase_web.deployments import writing
from mase_web.deployments.tests.conftest import make_deployment

pytestmark = pytest.mark.django_db


def test_the_writer_prompts_an_agent_without_one_as_the_loader_does(team):
    project, _ = team
    spec = {
        "agents": [
            {"id": "desk", "role": "custom", "intents": ["rental"], "prompt": "You rent bikes out."},
            {"id": "workshop", "role": "logistics", "intents": ["repair_booking"]},
            {"id": "quality_supervisor", "role": "quality_supervisor"},
        ],
        "environment": {
            "name": "customer_service",
            "params": {"intents": [{"name": "rental", "description": "Wants to rent a bike."},
                                   {"name": "repair_booking", "description": "Books a repair."}]},
        },
    }  # fmt: skip
    writing.forget_all()
    try:
        writer = writing.writer_for(make_deployment(project, Path("/nonexistent/checkpoint"), spec))
        assert writer.prompts == {
            "desk": "You rent bikes out.",
            "workshop": "You answer the customer's requests about repair booking (books a repair). "
            "Leave other requests to your teammates.",
            "quality_supervisor": ROLES["quality_supervisor"].default_prompt,
        }
    finally:
        writing.forget_all()
