"""The designer's live report carries the prompt each agent that names none is given, and flags a prompt of
the user's own that no longer speaks of the intents its agent owns."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from agents.roles import ROLES
from mase_web.accounts.models import Role
from mase_web.workflows.tests.conftest import template_spec

pytestmark = pytest.mark.django_db


def test_the_report_shows_prompts_derived_from_owned_intents_and_flags_a_stale_one(team):
    project, _, users, _ = team
    pm = APIClient()
    pm.force_authenticate(users[Role.PRODUCT_MANAGER])
    wid = pm.post(
        "/api/workflows/",
        {"project": project.pk, "name": "Bikes", "template": "customer_service"},
        format="json",
    ).json()["id"]
    shipped = template_spec("customer_service")
    report = pm.post(f"/api/workflows/{wid}/validate/", {"spec": shipped}, format="json").json()
    assert report["prompts"] == {}  # every shipped agent writes its prompt out
    assert not [w for w in report["warnings"] if w["path"].endswith(".prompt")]

    spec = template_spec("customer_service")
    spec["environment"]["params"]["intents"] = [
        {"name": "rental", "description": "Wants to rent a bike."},
        {"name": "repair_booking", "description": "Books a repair."},
    ]
    guide, logistics, mediator, _ = spec["agents"]
    guide["intents"], logistics["intents"] = ["rental"], ["repair_booking"]
    del guide["prompt"], logistics["prompt"]
    mediator["intents"] = ["rental"]  # its prompt is the user's: kept, and flagged
    report = pm.post(f"/api/workflows/{wid}/validate/", {"spec": spec}, format="json").json()
    assert report["prompts"] == {
        "shopping_guide": "You answer the customer's requests about rental (wants to rent a bike). "
        "Leave other requests to your teammates.",
        "logistics": "You answer the customer's requests about repair booking (books a repair). "
        "Leave other requests to your teammates.",
    }
    flagged = [w["path"] for w in report["warnings"] if w["path"].endswith(".prompt")]
    assert (
        flagged == ["$.agents[2].prompt"] and mediator["prompt"] == ROLES["dispute_mediator"].default_prompt
    )
