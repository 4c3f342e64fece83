"""A routing deployment with the scope gate on (its ``scope_gate``, decision 0020): a ticket outside the
catalogue gets a reply that says in words that a person takes it over, is logged as out of scope (the
episode's status, the reply's fault, review's fault filter) and plays nothing; the gate contrasts with the
generated out-of-scope tickets the routing interface offers. Turned off by a product manager, the same
ticket is played on the next request (the cached runtime takes the stored choice). Turned on, the gate is
built at once in the background, not by the first ticket, and a later process reads its vectors from beside
the checkpoint.
The team is the shipped customer-service template trained for a moment on the tiny backbone, whose vectors
barely mean anything, so the first of a few out-of-scope tickets the gate turns away is used (the default
backbone's decisions on such tickets: tests/serving/test_scope.py)."""

from __future__ import annotations

import pytest

from agents.envs.customer_service.interface import out_of_scope_tickets
from mase_web.accounts.models import Role
from mase_web.deployments import runtimes
from mase_web.deployments.models import Episode, Reply
from mase_web.deployments.tests.conftest import client_for, make_deployment, team_spec
from serving.scope import STORE_FILE

pytestmark = pytest.mark.django_db


def ask(users, deployment_id: int, text: str) -> dict:
    answered = client_for(users[Role.OPERATOR]).post(
        f"/api/deployments/{deployment_id}/tickets/", {"text": text}, format="json"
    )
    assert answered.status_code == 201, answered.content
    return answered.json()


@pytest.mark.slow  # trains the template for a moment on the tiny backbone, then embeds ~3,600 tickets
@pytest.mark.timeout(1200)
def test_a_routing_deployment_hands_a_ticket_outside_its_catalogue_to_a_person(
    team, trained_checkpoint, tiny_backbone_dir, settings
):
    project, users = team
    settings.MASE_SCOPE_GATE = True  # the site's default, where a new deployment's choice starts
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    texts = [row["text"] for row in out_of_scope_tickets({})[:40:2]]
    asked = ((text, ask(users, deployment.pk, text)) for text in texts)
    text, off = next((t, a) for t, a in asked if a["result"]["status"] == "out_of_scope")
    result, reply = off["result"], off["result"]["reply"]
    assert result["steps"] == 0 and result["decisions"] == [] and result["request"]["handoff"] is True
    assert result["request"]["in_scope"] is False and result["request"]["score"] <= result["request"]["floor"]
    assert "cannot help with this request" in reply["text"] and "member of staff" in reply["text"]
    assert reply["parts"] == []
    gate = runtimes.cached_runtime(deployment.pk)._scope.describe()
    assert gate["score"] == "contrast_5" and gate["outside"] == 600
    episode = Episode.objects.get(pk=off["episode"]["id"])
    assert episode.status == "out_of_scope" and episode.steps.count() == 0
    assert Reply.objects.get(episode=episode).fault == "out_of_scope"
    found = client_for(users[Role.OPERATOR]).get("/api/episodes/", {"fault": "out_of_scope", "page_size": 50})
    assert found.status_code == 200, found.content
    assert [e["id"] for e in found.json()["results"]] == [episode.pk]

    turned_off = client_for(users[Role.PRODUCT_MANAGER]).post(
        f"/api/deployments/{deployment.pk}/scope-gate/", {"scope_gate": False}, format="json"
    )
    assert turned_off.status_code == 200, turned_off.content
    again = ask(users, deployment.pk, text)  # the same runtime, built with the gate on
    assert again["result"]["status"] != "out_of_scope" and again["result"]["steps"] > 0


@pytest.mark.slow  # the session's trained template (above); the gate itself takes seconds on the tiny backbone
@pytest.mark.timeout(1200)
def test_turning_the_gate_on_builds_it_before_any_ticket_and_a_new_process_reads_its_vectors(
    team, trained_checkpoint, tiny_backbone_dir, django_capture_on_commit_callbacks
):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    assert deployment.scope_gate is False and runtimes.cached_runtime(deployment.pk) is None
    with django_capture_on_commit_callbacks() as after_commit:
        turned_on = client_for(users[Role.PRODUCT_MANAGER]).post(
            f"/api/deployments/{deployment.pk}/scope-gate/", {"scope_gate": True}, format="json"
        )
    assert turned_on.status_code == 200, turned_on.content
    warming = [callback() for callback in after_commit]  # what the server runs once the choice is stored
    assert len(warming) == 1 and warming[0] is not None
    warming[0].result(timeout=600)
    gate = runtimes.cached_runtime(deployment.pk)._scope
    assert gate is not None and not Episode.objects.exists()  # built with no ticket asked
    assert (trained_checkpoint / STORE_FILE).is_file()
    assert gate.describe()["score"] == "contrast_5"

    runtimes.forget_all()  # a process started later: it reads the vectors instead of encoding them
    deployment.refresh_from_db()
    again = runtimes.warm(deployment)._scope
    assert again.describe() == {**gate.describe(), "vectors": "store"} and again.floor == gate.floor
    ask(users, deployment.pk, "I was charged twice for the same order")
    assert runtimes.cached_runtime(deployment.pk)._scope is again  # the ticket used it, built nothing
