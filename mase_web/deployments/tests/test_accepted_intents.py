"""An intent accepted onto a deployment's design reaches its next generation: the accepted draft becomes the
deployment's design, operators may label tickets with the intent, and Evolve gives the challenger the intent
and its owner — trained from the spec, since the champion's checkpoint has the old action spaces (taught by
it, the challenger's run would fail on them)."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.evolution import evolve
from mase_web.deployments.models import Deployment, Generation
from mase_web.deployments.tests.conftest import client_for, make_deployment, team_spec
from mase_web.deployments.tests.test_corrections import logged_episode
from mase_web.deployments.tests.test_evolution import give_slice
from training.mappo.checkpoint import CheckpointError

ACCEPT = {
    "name": "cancel_subscription",
    "description": "stop a subscription's renewal",
    "owner": "dispute_mediator",
}


def accept(deployment, user) -> dict:
    path = f"/api/deployments/{deployment.pk}/intent-proposals/accept/"
    answer = client_for(user).post(path, ACCEPT, format="json")
    assert answer.status_code == 201, answer.content
    return answer.json()


@pytest.mark.django_db
def test_an_accepted_intent_may_label_the_deployments_tickets(team):
    project, users = team
    episode, _ = logged_episode(project)
    operator, path = client_for(users[Role.OPERATOR]), f"/api/episodes/{episode.pk}/correct/"
    refused = operator.post(path, {"intents": ["cancel_subscription"]}, format="json")
    assert refused.status_code == 400  # not in the catalogue before it is accepted
    accepted = accept(episode.deployment, users[Role.PRODUCT_MANAGER])
    deployment = Deployment.objects.get(pk=episode.deployment_id)
    assert deployment.workflow_id == accepted["workflow"]  # the draft made is the deployment's design now
    offered = operator.get(f"/api/deployments/{deployment.pk}/catalogue/").json()["intents"]
    assert offered[-1] == {"name": "cancel_subscription", "description": ACCEPT["description"]}
    answer = operator.post(path, {"intents": ["cancel_subscription"]}, format="json")
    assert answer.status_code == 201, answer.content
    unknown = operator.post(path, {"intents": ["refund_twice"]}, format="json")
    assert unknown.status_code == 400  # only the accepted name joins the catalogue
    assert deployment.spec == episode.deployment.spec  # nothing served changes before a generation learns it


@pytest.mark.django_db
def test_evolve_gives_the_challenger_the_accepted_intent_and_its_owner(
    team, trained_checkpoint, tiny_backbone_dir
):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    give_slice(deployment)
    generation = evolve(deployment, users[Role.PRODUCT_MANAGER])
    assert generation.data["intents_added"] == []  # nothing accepted: the champion's catalogue
    Generation.objects.filter(pk=generation.pk).update(phase=Generation.Phase.FAILED)
    deployment.evolution |= {"min_interval_s": 0}
    deployment.save(update_fields=["evolution"])
    accept(deployment, users[Role.PRODUCT_MANAGER])
    generation = evolve(Deployment.objects.get(pk=deployment.pk), users[Role.PRODUCT_MANAGER])
    params = generation.spec["environment"]["params"]
    assert [i["name"] for i in params["intents"]][-1] == "cancel_subscription"
    assert "order_tracking" in [i["name"] for i in params["intents"]]
    owners = {a["id"]: a["intents"] for a in generation.spec["agents"]}
    assert owners["dispute_mediator"][-1] == "cancel_subscription"
    assert "cancel_subscription" not in owners["logistics"]
    assert generation.spec["training"].get("teacher") != "checkpoint"
    assert generation.data["intents_added"] == ["cancel_subscription"]
    assert "catalogue gained cancel_subscription" in generation.data["start"]
    assert Deployment.objects.get(pk=deployment.pk).spec == deployment.spec  # served only once promoted


def champion_as_teacher(spec: dict, checkpoint: str):
    """The challenger's team loaded with the champion's checkpoint, as a checkpoint teacher would be."""
    import json
    from pathlib import Path

    from agents.spec import load_spec
    from mase_web.deployments.runtimes import backbone_for
    from training.mappo.config import MappoConfig
    from training.mappo.from_spec import trained_team

    team = load_spec(spec, require_environment=True)
    config = MappoConfig.from_dict(json.loads((Path(checkpoint) / "state.json").read_text())["config"])
    return trained_team(team, config, checkpoint, backbone_for(team))


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)  # the run's recorder has its own thread
def test_a_challenger_with_an_accepted_intent_trains_and_answers_it(
    team, trained_checkpoint, tiny_backbone_dir
):
    from mase_web.deployments.evolution_eval import answers
    from mase_web.deployments.tests.test_evolution_e2e import run_to_the_end
    from mase_web.runs.facade import Run

    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    give_slice(deployment)
    accept(deployment, users[Role.PRODUCT_MANAGER])
    generation = evolve(Deployment.objects.get(pk=deployment.pk), users[Role.PRODUCT_MANAGER])
    with pytest.raises(CheckpointError, match="other action spaces"):
        champion_as_teacher(generation.spec, deployment.checkpoint)  # why it is not taught by the champion
    run = Run.objects.get(pk=generation.run_id)
    assert run_to_the_end(run) == Run.State.SUCCEEDED, Run.objects.get(pk=run.pk).error
    from mase_web.deployments.evolution_eval import run_checkpoint

    checkpoint = run_checkpoint(Run.objects.get(pk=run.pk))
    got = answers(generation.spec, checkpoint, ["please cancel my subscription", "where is my parcel"])
    assert len(got) == 2 and all(isinstance(g, list) for g in got)  # served on the nine-intent spec
