"""A ticket the scope gate turns away keeps the gate's verdict with its episode, in numbers: the nearest intent,
its similarity and the floor, and the "none of these" class's in-scope probability and the threshold it missed.
The ticket console's answer, the episode's detail and the review list all carry it as typed fields
(``out_of_scope``); a played ticket carries null.
The team is the session's trained template; its gate is the hand-made one of tests/serving/test_scope_none.py
(seconds, where building the template's own gate embeds thousands of tickets: test_routing_scope.py)."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments import runtimes
from mase_web.deployments.tests.conftest import client_for, make_deployment, team_spec
from serving.scope import NONE_THRESHOLD
from tests.serving.test_scope_none import gate as toy_gate

pytestmark = pytest.mark.django_db


def test_a_turned_away_ticket_carries_the_gates_numbers_and_a_played_one_none(
    team, trained_checkpoint, tiny_backbone_dir
):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    deployment.scope_gate = True
    deployment.save(update_fields=["scope_gate"])
    gate = toy_gate()
    runtimes.runtime_for(
        deployment
    )._scope = gate  # what prepare_scope_gate would build, from the toy catalogue
    expected = gate.check("lasagne recipe")
    assert expected["in_scope"] is False and expected["in_scope_probability"] is not None

    operator = client_for(users[Role.OPERATOR])
    answered = operator.post(
        f"/api/deployments/{deployment.pk}/tickets/", {"text": "lasagne recipe"}, format="json"
    )
    assert answered.status_code == 201, answered.content
    verdict = answered.json()["episode"]["out_of_scope"]
    assert verdict == {
        "handoff": True,
        "nearest": expected["nearest"],
        "score": expected["score"],
        "floor": expected["floor"],
        "in_scope_probability": expected["in_scope_probability"],
        "threshold": NONE_THRESHOLD,
    }
    assert verdict["score"] <= verdict["floor"] and verdict["in_scope_probability"] < verdict["threshold"]

    episode_id = answered.json()["episode"]["id"]
    assert operator.get(f"/api/episodes/{episode_id}/").json()["out_of_scope"] == verdict
    rows = operator.get("/api/episodes/", {"fault": "out_of_scope"}).json()["results"]
    assert [(r["id"], r["out_of_scope"]) for r in rows] == [(episode_id, verdict)]

    played = operator.post(f"/api/deployments/{deployment.pk}/tickets/", {"text": "vpn slow"}, format="json")
    assert played.status_code == 201, played.content
    assert (
        played.json()["result"]["status"] != "out_of_scope"
        and played.json()["episode"]["out_of_scope"] is None
    )
