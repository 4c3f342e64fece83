"""Review by ticket: /api/episodes/ lists one row per ticket with its text, the reply, who decided and how sure;
its filters; a review of the episode lands on its deciding decisions; and who may see or review any of it."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments import breaker_store
from mase_web.deployments.models import DecisionStep, Episode
from mase_web.deployments.tests.conftest import client_for, fresh_text, make_deployment, team_spec

pytestmark = pytest.mark.django_db

REFUND = "my lamp arrived broken and I want a refund"
PARCEL = "where is my parcel? the delivery is late"


@pytest.fixture
def tickets(team, trained_checkpoint, tiny_backbone_dir):
    """One deployment answered a refund ticket by model and a parcel ticket by the rule fallback."""
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir), name="first")
    op = users[Role.OPERATOR]

    def send(text):
        url = f"/api/deployments/{deployment.pk}/tickets/"
        response = client_for(op).post(url, {"text": text}, format="json")
        assert response.status_code == 201, response.content
        return Episode.objects.get(pk=response.json()["episode"]["id"])

    refund = send(fresh_text(REFUND))
    breaker_store.force(deployment.pk, op, "testing the rules", to_open=True)
    parcel = send(fresh_text(PARCEL))
    return users, deployment, refund, parcel


def listed(user, **params) -> dict:
    response = client_for(user).get("/api/episodes/", {"page_size": 50, **params})
    assert response.status_code == 200, response.content
    return response.json()


def test_a_row_per_ticket_with_its_text_reply_decider_and_confidence(tickets):
    users, deployment, refund, parcel = tickets
    page = listed(users[Role.OPERATOR])
    assert page["count"] == 2 and [r["id"] for r in page["results"]] == [parcel.pk, refund.pk]
    rows = {r["id"]: r for r in page["results"]}
    row = rows[refund.pk]
    assert row["task_text"] == refund.task_text
    assert row["reply"]["text"] and row["reply"]["text"] == refund.result["reply"]["text"]
    deciding = DecisionStep.objects.filter(episode=refund).exclude(action_index=0).order_by("step", "id")
    assert deciding.exists()  # the team did something about the ticket, not only pass
    assert [(d["agent"], d["action"]) for d in row["decided_by"]] == [(s.agent, s.action) for s in deciding]
    assert all(d["action"] not in ("pass", "continue") for d in row["decided_by"])
    assert row["confidence"] == pytest.approx(min(s.confidence for s in deciding))
    assert row["decision_count"] == refund.steps.count() > len(row["decided_by"]) - 1
    # the steps as the ticket console counts them (its "2 steps"): rounds of decisions, not decisions
    assert row["step_count"] == len({s.step for s in refund.steps.all()}) < row["decision_count"]
    assert row["decided_source"] == "model" and row["review_status"] == "unreviewed"
    assert rows[parcel.pk]["decided_source"] == "fallback" and rows[parcel.pk]["breaker_state"] == "open"


def test_filters_narrow_the_tickets(tickets):
    users, deployment, refund, parcel = tickets
    op = users[Role.OPERATOR]

    def ids(**params):
        return {r["id"] for r in listed(op, **params)["results"]}

    assert ids(decision_source="fallback") == {parcel.pk}
    assert ids(decision_source="model") == {refund.pk}
    assert ids(breaker_state="open") == {parcel.pk}
    assert ids(q="parcel") == {parcel.pk}
    assert ids(run=deployment.run_id) == {refund.pk, parcel.pk}
    agent = DecisionStep.objects.filter(episode=refund).exclude(action_index=0).first().agent
    assert refund.pk in ids(agent=agent)
    assert ids(agent="nobody") == set()
    confidence = listed(op)["results"][1]["confidence"]
    assert ids(confidence_min=confidence, confidence_max=confidence) == {refund.pk}
    assert ids(confidence_min=min(1.0, confidence + 1e-6)) == set()
    for params, field in [
        ({"review_status": "meh"}, "review_status"),
        ({"confidence_min": 0.9, "confidence_max": 0.1}, "confidence_min"),
        ({"decision_source": "oracle"}, "decision_source"),
        ({"run": 10**6}, "run"),
    ]:
        bad = client_for(op).get("/api/episodes/", params)
        assert bad.status_code == 400 and list(bad.json()["errors"]) == [field], bad.content


def test_reviewing_a_ticket_marks_its_deciding_decisions(tickets):
    users, _, refund, parcel = tickets
    op = users[Role.OPERATOR]
    url = f"/api/episodes/{refund.pk}/review/"
    missing = client_for(op).post(url, {"status": "wrong"}, format="json")
    assert missing.status_code == 400 and "reason" in missing.json()["errors"]
    response = client_for(op).post(
        url, {"status": "wrong", "reason": "sent a refund for a parcel"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["review_status"] == "wrong" and response.json()["id"] == refund.pk
    deciding = DecisionStep.objects.filter(episode=refund).exclude(action_index=0)
    assert {(s.review_status, s.review_reason) for s in deciding} == {("wrong", "sent a refund for a parcel")}
    assert not DecisionStep.objects.filter(episode=refund, action_index=0).exclude(review_status="unreviewed")
    assert {r["id"] for r in listed(op, review_status="wrong")["results"]} == {refund.pk}
    assert {r["id"] for r in listed(op, review_status="unreviewed")["results"]} == {parcel.pk}
    # the per-decision review stays: clearing one deciding decision leaves the others wrong
    step = deciding.first()
    cleared = client_for(op).post(
        f"/api/decisions/{step.pk}/review/", {"status": "unreviewed"}, format="json"
    )
    assert cleared.status_code == 200 and cleared.json()["review_status"] == "unreviewed"
    ok = client_for(op).post(f"/api/episodes/{parcel.pk}/review/", {"status": "ok"}, format="json")
    assert ok.json()["review_status"] == "ok"
    assert {r["id"] for r in listed(op, review_status="ok")["results"]} == {parcel.pk}


@pytest.mark.parametrize("who", [Role.PRODUCT_MANAGER, Role.ANNOTATOR, "stranger"])
def test_only_operators_and_admins_see_or_review_tickets(tickets, who):
    users, _, refund, _ = tickets
    client = client_for(users[who])
    assert client.get("/api/episodes/").json()["count"] == 0
    response = client.post(f"/api/episodes/{refund.pk}/review/", {"status": "ok"}, format="json")
    assert response.status_code == 404
    assert not DecisionStep.objects.filter(episode=refund).exclude(review_status="unreviewed").exists()
    assert listed(users[Role.ADMIN])["count"] == 2
    assert client_for(None).get("/api/episodes/").status_code == 403


def test_a_ticket_turned_away_as_out_of_scope_says_so_in_its_row(team):
    """The scope gate's handoff (status out_of_scope, nothing played) carries the nearest intent; an
    answered ticket carries nothing of the kind."""
    from mase_web.deployments.tests.test_corrections import logged_episode

    project, users = team
    answered, _ = logged_episode(project, text="where is my parcel?")
    gate = {"in_scope": False, "score": 0.31, "floor": 0.46, "nearest": "complaint", "handoff": True}
    handed = Episode.objects.create(
        deployment=answered.deployment, request_id="api-handed", task_text="what is the weather tomorrow?",
        status="out_of_scope", result={"status": "out_of_scope", "steps": 0, "request": gate},
    )  # fmt: skip
    rows = {r["id"]: r for r in listed(users[Role.OPERATOR])["results"]}
    assert rows[handed.pk]["out_of_scope"] == {
        "handoff": True, "nearest": "complaint", "score": 0.31, "floor": 0.46,
        "in_scope_probability": None, "threshold": None,  # a gate without a "none of these" class
    }  # fmt: skip
    assert rows[handed.pk]["status"] == "out_of_scope" and rows[handed.pk]["decided_by"] == []
    assert rows[answered.pk]["out_of_scope"] is None


def test_a_ticket_row_says_why_a_decision_was_marked_wrong(team):
    """The row carries the reason given with the ticket's review (the strongest one: wrong before
    escalated before ok), so a review list shows it without opening the steps; none while unreviewed, and
    none borrowed from a weaker review when the strongest gave no reason."""
    from mase_web.deployments.tests.test_corrections import logged_episode

    project, users = team
    op = users[Role.OPERATOR]
    episode, step = logged_episode(project, text="where is my parcel?")
    other = DecisionStep.objects.create(
        episode=episode, step=2, agent="reviewer", observation="{}", action="approve", action_index=1,
        source="model", confidence=0.8,
    )  # fmt: skip

    def row() -> dict:
        return {r["id"]: r for r in listed(op)["results"]}[episode.pk]

    assert row()["review_reason"] == ""
    ok = client_for(op).post(
        f"/api/decisions/{other.pk}/review/", {"status": "ok", "reason": "fine"}, format="json"
    )
    assert ok.status_code == 200, ok.content
    wrong = {"status": "wrong", "reason": "answered a refund for a parcel"}
    marked = client_for(op).post(f"/api/decisions/{step.pk}/review/", wrong, format="json")
    assert marked.status_code == 200, marked.content
    assert row()["review_status"] == "wrong" and row()["review_reason"] == "answered a refund for a parcel"
    reviewed = client_for(op).post(
        f"/api/episodes/{episode.pk}/review/", {"status": "wrong", "reason": "wrong owner"}, format="json"
    )
    assert reviewed.json()["review_reason"] == "wrong owner"  # the review's answer is the row too
    DecisionStep.objects.filter(pk=step.pk).update(review_reason="")
    DecisionStep.objects.filter(pk=other.pk).update(review_status="ok", review_reason="fine")
    assert row()["review_status"] == "wrong" and row()["review_reason"] == ""
