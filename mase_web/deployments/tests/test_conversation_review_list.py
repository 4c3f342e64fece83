"""The review list and an episode's detail read a conversation's turns: each turn stores its reply as the
words the team said (`deployments.conversations`), where a ticket stores the writer's whole reply, and the
list answered 500 for every deployment once one conversation had been held."""

from __future__ import annotations

from mase_web.deployments.tests.conftest import client_for
from mase_web.deployments.tests.test_conversations import (  # noqa: F401 (fixtures)
    _start,
    interactive_checkpoint,
    unsure_deployment,
)


def test_a_conversation_turn_is_listed_for_review_with_its_words(team, unsure_deployment):  # noqa: F811
    _, users = team
    talk = _start(client_for(users["product_manager"]), unsure_deployment).json()
    (turn,) = talk["turn_list"]
    operator = client_for(users["operator"])
    listed = operator.get(f"/api/episodes/?deployment={unsure_deployment.pk}")
    assert listed.status_code == 200, listed.content[:300]
    (row,) = listed.json()["results"]
    assert row["reply"]["text"] == turn["reply"] and row["reply"]["backend"] == "template"
    # its event too, as the conversation's turns carry it: a turn the customer answered with "That solved it"
    # or "It did not" has no words, and the list says which from it
    assert turn["event"] and row["event"] == turn["event"]
    detail = operator.get(f"/api/episodes/{turn['episode']}/")
    assert detail.status_code == 200 and detail.json()["reply"]["text"] == turn["reply"]
    assert detail.json()["event"] == turn["event"]  # the trajectory view words a turn without words from it
