"""An operator's correction in review: the right intents and/or owner (checked against the deployment's
catalogue and team), optionally a better reply; it marks the decision wrong and the corrected ticket lands
in the deployment's dataset with provenance "corrected", the reviewer and its source."""

from __future__ import annotations

import json

import pytest

from mase_web.accounts.models import Project, Role
from mase_web.datasets.models import Dataset, DatasetRow
from mase_web.deployments.models import Correction, DecisionStep, Deployment, Episode
from mase_web.deployments.tests.conftest import client_for, make_trained_run

pytestmark = pytest.mark.django_db

SPEC = {
    "agents": [
        {"id": "logistics", "intents": ["order_tracking", "delivery_delay"]},
        {"id": "dispute_mediator", "intents": ["return_refund", "damaged_item"]},
    ],
    "environment": {"name": "customer_service"},
}


def logged_episode(
    project, text="my parcel is late and the lamp inside is broken"
) -> tuple[Episode, DecisionStep]:
    """A finished ticket with one deciding decision (rows as the runtime writes them; no team needed)."""
    run = make_trained_run(project, None, SPEC)
    deployment = Deployment.objects.create(project=project, name="cs", run=run, checkpoint="/none", spec=SPEC)
    episode = Episode.objects.create(
        deployment=deployment, request_id=f"api-{project.pk}-{Episode.objects.count()}", task_text=text,
        status="completed", result={"info": {"predicted_intents": ["delivery_delay"]}},
    )  # fmt: skip
    step = DecisionStep.objects.create(
        episode=episode, step=1, agent="logistics", observation="{}", action="answer", action_index=1,
        source="model", confidence=0.9,
    )  # fmt: skip
    return episode, step


def with_reviewer(deployment: Deployment) -> None:
    """The deployment's team gains the customer-service reviewer (it approves answers, owns no intents)."""
    reviewer = {"id": "quality_supervisor", "role": "quality_supervisor", "intents": []}
    deployment.spec = {**deployment.spec, "agents": [*deployment.spec["agents"], reviewer]}
    deployment.save(update_fields=["spec"])


def post(user, path, body):
    return client_for(user).post(path, body, format="json")


def test_an_operator_corrects_a_decision_and_it_lands_in_the_deployments_dataset(team):
    project, users = team
    episode, step = logged_episode(project)
    op = users[Role.OPERATOR]
    body = {
        "intents": ["delivery_delay", "damaged_item"],
        "owner": "dispute_mediator",
        "reply": "Sorry: refund.",
    }
    answer = post(op, f"/api/decisions/{step.pk}/correct/", body)
    assert answer.status_code == 201, answer.content
    stored = answer.json()
    assert (stored["intents"], stored["owner"], stored["reply"], stored["corrected_by"], stored["step"]) == (
        ["delivery_delay", "damaged_item"], "dispute_mediator", "Sorry: refund.", op.username, step.pk,
    )  # fmt: skip
    step.refresh_from_db()
    assert step.review_status == "wrong" and step.reviewed_by == op
    assert step.review_reason == "corrected: intents delivery_delay, damaged_item; owner dispute_mediator"

    landed = stored["dataset_row"]
    dataset = Dataset.objects.get(pk=landed["dataset"])
    assert dataset.deployment_id == episode.deployment_id and dataset.project_id == project.pk
    # the dataset carries the deployment's intents with their descriptions: a team trained on it brings them
    catalogue = {i["name"]: i["description"] for i in dataset.catalogue["intents"]}
    assert {"delivery_delay", "damaged_item"} <= set(catalogue) and all(catalogue.values())
    row = DatasetRow.objects.get(pk=landed["row"])
    assert (row.version_id, row.text, row.intents, row.owner, row.reference_reply) == (
        landed["version"], episode.task_text, ["damaged_item", "delivery_delay"], "dispute_mediator", "Sorry: refund.",
    )  # fmt: skip
    assert (row.provenance, row.by, row.source_ref) == (
        "corrected", op, f"deployment/{episode.deployment_id}/episode/{episode.pk}/decision/{step.pk}",
    )  # fmt: skip

    again = post(
        op, f"/api/episodes/{episode.pk}/correct/", {"intents": ["damaged_item"], "reason": "only broken"}
    )
    assert again.status_code == 201, again.content
    kept = Correction.objects.filter(episode=episode)
    assert [c.intents for c in kept] == [["damaged_item"]]
    step.refresh_from_db()
    assert step.review_reason == "only broken"
    newer = DatasetRow.objects.get(pk=again.json()["dataset_row"]["row"])
    assert (newer.version.dataset_id, newer.version.number, newer.intents) == (
        dataset.pk,
        2,
        ["damaged_item"],
    )
    assert newer.source_ref == f"deployment/{episode.deployment_id}/episode/{episode.pk}"
    # relabelled in place: the ticket is held once, with the newer labels and the first row's split
    assert list(newer.version.rows.values_list("text", flat=True)) == [episode.task_text]
    assert newer.split == row.split


def test_names_outside_the_catalogue_or_team_are_field_errors(team):
    project, users = team
    _, step = logged_episode(project)
    op, path = users[Role.OPERATOR], f"/api/decisions/{step.pk}/correct/"
    unknown = post(op, path, {"intents": ["order_tracking", "warranty_claim"]})
    assert unknown.status_code == 400
    assert "warranty_claim" in unknown.json()["errors"]["intents"][0]
    assert "order_tracking" not in unknown.json()["errors"]["intents"][0].split("(")[0]
    stranger_agent = post(op, path, {"owner": "billing"})
    assert stranger_agent.status_code == 400 and "billing" in stranger_agent.json()["errors"]["owner"][0]
    with_reviewer(step.episode.deployment)
    reviewer = post(op, path, {"owner": "quality_supervisor"})  # it approves answers, it owns no ticket
    assert reviewer.status_code == 400 and "owns no intents" in reviewer.json()["errors"]["owner"][0]
    nothing = post(op, path, {"reply": "a reply alone says nothing about routing"})
    assert nothing.status_code == 400 and "intents" in nothing.json()["errors"]
    twice = post(op, path, {"intents": ["damaged_item", "damaged_item"]})
    assert twice.json()["errors"]["intents"] == ["names an intent twice"]
    assert post(op, path, {"intents": "damaged_item"}).status_code == 400
    assert not Correction.objects.exists() and not Dataset.objects.exists()
    step.refresh_from_db()
    assert step.review_status == "unreviewed"


@pytest.mark.parametrize("role", [Role.ANNOTATOR, Role.PRODUCT_MANAGER])
def test_only_operators_and_admins_correct(team, role):
    project, users = team
    episode, step = logged_episode(project)
    body = {"intents": ["damaged_item"]}
    assert post(users[role], f"/api/decisions/{step.pk}/correct/", body).status_code == 403
    assert post(users[role], f"/api/episodes/{episode.pk}/correct/", body).status_code == 403
    assert post(users[Role.ADMIN], f"/api/decisions/{step.pk}/correct/", body).status_code == 201
    assert Correction.objects.get().corrected_by == users[Role.ADMIN]


def test_another_projects_decisions_and_tickets_are_not_found(team):
    project, users = team
    elsewhere = Project.objects.get(name="elsewhere")
    episode, step = logged_episode(project)
    stranger = users["stranger"]  # an admin of the other project
    body = {"intents": ["damaged_item"]}
    for path in (f"/api/decisions/{step.pk}/correct/", f"/api/episodes/{episode.pk}/correct/"):
        assert post(stranger, path, body).status_code == 404
    assert post(stranger, "/api/decisions/999999/correct/", body).status_code == 404
    assert client_for(stranger).get(f"/api/deployments/{episode.deployment_id}/catalogue/").status_code == 404
    their_episode, _ = logged_episode(elsewhere)
    assert post(users[Role.OPERATOR], f"/api/episodes/{their_episode.pk}/correct/", body).status_code == 404
    assert not Correction.objects.exists() and not DatasetRow.objects.exists()


def test_the_catalogue_offers_the_intents_with_descriptions_and_the_team(team):
    project, users = team
    episode, _ = logged_episode(project)
    catalogue = (
        client_for(users[Role.OPERATOR]).get(f"/api/deployments/{episode.deployment_id}/catalogue/").json()
    )
    names = [i["name"] for i in catalogue["intents"]]
    assert "damaged_item" in names and all(i["description"] for i in catalogue["intents"])
    assert catalogue["agents"] == [
        {"id": "logistics", "intents": ["order_tracking", "delivery_delay"], "reviews": False},
        {"id": "dispute_mediator", "intents": ["return_refund", "damaged_item"], "reviews": False},
    ]


def test_the_catalogue_says_which_agents_review_so_the_page_offers_only_owners(team):
    """The correction and proposal forms offer as owners the agents the owner check accepts: a reviewer is
    marked (``reviews``), by the same rule that answers 400 on it as an owner."""
    project, users = team
    episode, step = logged_episode(project)
    with_reviewer(Deployment.objects.get(pk=episode.deployment_id))
    op = users[Role.OPERATOR]
    agents = client_for(op).get(f"/api/deployments/{episode.deployment_id}/catalogue/").json()["agents"]
    assert {a["id"]: a["reviews"] for a in agents} == {
        "logistics": False, "dispute_mediator": False, "quality_supervisor": True,
    }  # fmt: skip
    for agent in agents:
        answer = post(op, f"/api/decisions/{step.pk}/correct/", {"owner": agent["id"]})
        assert (answer.status_code == 400) is agent["reviews"], (agent, answer.json())


def test_a_catalogue_the_spec_declares_is_the_one_corrections_use(team):
    """An intent the environment never shipped, declared in the spec (``environment.params.intents``), may be
    given; a shipped name standing alone keeps its shipped description."""
    project, users = team
    episode, step = logged_episode(project)
    spec = {**SPEC, "environment": {"name": "customer_service", "params": {"intents": [
        {"name": "warranty_claim", "description": "A product broke within its warranty."}, {"name": "damaged_item"},
    ]}}}  # fmt: skip
    Deployment.objects.filter(pk=episode.deployment_id).update(spec=spec)
    op = users[Role.OPERATOR]
    catalogue = client_for(op).get(f"/api/deployments/{episode.deployment_id}/catalogue/").json()["intents"]
    assert [i["name"] for i in catalogue] == ["warranty_claim", "damaged_item"]
    assert catalogue[1]["description"]  # the shipped one
    assert post(op, f"/api/decisions/{step.pk}/correct/", {"intents": ["delivery_delay"]}).status_code == 400
    assert post(op, f"/api/decisions/{step.pk}/correct/", {"intents": ["warranty_claim"]}).status_code == 201


def test_the_catalogue_gives_an_example_ticket_from_the_teams_own_data(team, tmp_path):
    """The ticket console's example is a ticket of the deployment's own tickets asking for its first intent:
    a library desk's is about borrowing, the shipped customer-service team's a shop's question."""
    project, users = team
    episode, _ = logged_episode(project)
    op = users[Role.OPERATOR]
    path = f"/api/deployments/{episode.deployment_id}/catalogue/"
    assert client_for(op).get(path).json()["example"] == "What's the battery life on the running shoes?"
    tickets = tmp_path / "library.jsonl"
    rows = [
        {"text": "renew my loan and what time do you close", "intents": ["renew_loan", "opening_hours"]},
        {"text": "can I keep the atlas two more weeks?", "intents": ["renew_loan"]},
        {"text": "are you open on Sunday?", "intents": ["opening_hours"]},
    ]
    tickets.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    intents = [
        {"name": "renew_loan", "description": "Keep a borrowed book longer."},
        {"name": "opening_hours", "description": "When the library is open."},
    ]
    params = {"intents": intents, "tickets": str(tickets)}
    library = {"agents": [{"id": "desk", "intents": ["renew_loan", "opening_hours"]}],
               "environment": {"name": "customer_service", "params": params}}  # fmt: skip
    Deployment.objects.filter(pk=episode.deployment_id).update(spec=library)
    assert client_for(op).get(path).json()["example"] == "can I keep the atlas two more weeks?"
    tickets.unlink()  # tickets gone since: no example, no error
    assert client_for(op).get(path).json()["example"] is None
