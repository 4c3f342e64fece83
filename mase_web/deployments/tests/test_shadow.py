"""Shadow mode: a trained candidate answers live tickets silently beside the champion. The customer's
answer is the champion's alone (nothing of the shadow in the response, the decision log or the live
stream); each shadow answer is recorded with the champion's for agreement and review; one shadow at a
time; product managers start and stop it; other projects 404."""

from __future__ import annotations

import json
import shutil

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.evolution import first_generation
from mase_web.deployments.models import DecisionStep, Generation, ShadowAnswer
from mase_web.deployments.tests.conftest import client_for, make_deployment, make_trained_run, team_spec

pytestmark = pytest.mark.django_db


@pytest.fixture
def candidate(team, trained_checkpoint, tiny_backbone_dir, tmp_path):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    copy = tmp_path / "generation-2"
    shutil.copytree(trained_checkpoint, copy)
    generation = Generation.objects.create(
        deployment=deployment, number=2, run=make_trained_run(project, copy, deployment.spec),
        checkpoint=str(copy), spec=deployment.spec, parent=first_generation(deployment),
        phase=Generation.Phase.READY,
    )  # fmt: skip
    return deployment, generation, users


def test_a_shadow_answers_live_tickets_silently_beside_the_champion(candidate, settings):
    settings.MASE_SHADOW_INLINE = True
    deployment, generation, users = candidate
    pm, op = client_for(users[Role.PRODUCT_MANAGER]), client_for(users[Role.OPERATOR])
    started = pm.post(f"/api/deployments/{deployment.pk}/generations/2/shadow/")
    assert started.status_code == 200 and started.json()["generation"] == 2
    texts = ["where is my parcel", "the vase arrived broken", "I want my money back"]
    for text in texts:
        answer = op.post(f"/api/deployments/{deployment.pk}/tickets/", {"text": text}, format="json")
        assert answer.status_code == 201, answer.content
        assert "shadow" not in json.dumps(answer.json())  # the customer's answer is the champion's alone
    shadows = ShadowAnswer.objects.filter(generation=generation).select_related("episode")
    assert sorted(a.episode.task_text for a in shadows) == sorted(texts)
    for a in shadows:  # the same weights: the shadow agrees with what the champion answered
        assert a.agrees and a.intents == sorted(a.episode.result["info"]["predicted_intents"])
    # the decision log holds the champion's decisions only: one set per ticket
    assert (
        DecisionStep.objects.filter(episode__deployment=deployment).values("episode").distinct().count() == 3
    )
    summary = op.get(f"/api/deployments/{deployment.pk}/shadow/").json()
    assert (summary["generation"], summary["tickets"], summary["agreement"]) == (2, 3, 1.0)

    stopped = pm.delete(f"/api/deployments/{deployment.pk}/shadow/")
    assert stopped.status_code == 200 and stopped.json()["generation"] is None
    generation.refresh_from_db()
    assert generation.status == Generation.Status.CANDIDATE
    op.post(f"/api/deployments/{deployment.pk}/tickets/", {"text": "where is my parcel now"}, format="json")
    assert ShadowAnswer.objects.count() == 3  # no shadow, no shadow answer


def test_disagreements_are_listed_for_review(candidate, settings):
    deployment, generation, users = candidate
    generation.status = Generation.Status.SHADOW
    generation.save(update_fields=["status"])
    from mase_web.deployments.models import Episode

    episode = Episode.objects.create(
        deployment=deployment, request_id="e-1", task_text="charged twice", status="completed",
        result={"info": {"predicted_intents": ["return_refund"]}},
    )  # fmt: skip
    ShadowAnswer.objects.create(
        episode=episode, generation=generation, intents=[], champion_intents=["return_refund"], agrees=False
    )
    summary = client_for(users[Role.OPERATOR]).get(f"/api/deployments/{deployment.pk}/shadow/").json()
    assert summary["agreement"] == 0.0
    assert summary["disagreements"][0] | {"at": None} == {
        "episode": episode.pk, "text": "charged twice", "champion": ["return_refund"], "shadow": [], "at": None,
    }  # fmt: skip


def test_only_a_trained_candidate_runs_in_shadow_for_those_who_deploy(candidate):
    deployment, generation, users = candidate
    path = f"/api/deployments/{deployment.pk}/generations/2/shadow/"
    assert client_for(users[Role.OPERATOR]).post(path).status_code == 403
    assert client_for(users["stranger"]).post(path).status_code == 404
    assert client_for(users["stranger"]).get(f"/api/deployments/{deployment.pk}/shadow/").status_code == 404
    pm = client_for(users[Role.PRODUCT_MANAGER])
    champion = pm.post(f"/api/deployments/{deployment.pk}/generations/1/shadow/")
    assert champion.status_code == 400 and "serves already" in champion.json()["detail"]
    assert pm.post(f"/api/deployments/{deployment.pk}/generations/9/shadow/").status_code == 404
    Generation.objects.filter(pk=generation.pk).update(phase=Generation.Phase.TRAINING)
    training = pm.post(path)
    assert training.status_code == 400 and "no trained checkpoint" in training.json()["detail"]


@pytest.mark.django_db(
    transaction=True
)  # the shadow's thread reads the committed episode on its own connection
def test_the_shadow_answers_on_its_own_thread_after_the_reply(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    import time

    from mase_web.deployments import shadow
    from mase_web.deployments.inference import TicketRequest, answer_ticket

    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    copy = tmp_path / "generation-2"
    shutil.copytree(trained_checkpoint, copy)
    generation = Generation.objects.create(
        deployment=deployment, number=2, run=make_trained_run(project, copy, deployment.spec),
        checkpoint=str(copy), spec=deployment.spec, parent=first_generation(deployment),
        phase=Generation.Phase.READY,
    )  # fmt: skip
    shadow.start(generation)
    answer = answer_ticket(deployment, TicketRequest("my parcel is late"), "api", users[Role.OPERATOR])
    deadline = time.monotonic() + 60
    while not ShadowAnswer.objects.filter(episode=answer.episode).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ShadowAnswer.objects.get(episode=answer.episode).generation_id == generation.pk
    shadow.forget(generation.pk)


def test_the_shadow_hands_off_what_the_champions_scope_gate_hands_off(candidate, settings):
    """With the deployment's scope gate on, a ticket the champion hands to a person is handed off by the
    shadow too: it ran without the gate, so every such ticket counted as a disagreement."""
    from mase_web.deployments import runtimes, shadow
    from tests.serving.test_scope_none import gate as toy_gate

    settings.MASE_SHADOW_INLINE = True
    deployment, generation, users = candidate
    deployment.scope_gate = True
    deployment.save(update_fields=["scope_gate"])
    client_for(users[Role.PRODUCT_MANAGER]).post(f"/api/deployments/{deployment.pk}/generations/2/shadow/")
    generation.refresh_from_db()
    runtimes.runtime_for(deployment)._scope = toy_gate()  # what prepare_scope_gate builds, in seconds
    shadow._runtime(generation)._scope = toy_gate()
    answer = client_for(users[Role.OPERATOR]).post(
        f"/api/deployments/{deployment.pk}/tickets/", {"text": "lasagne recipe"}, format="json"
    )
    assert answer.json()["result"]["status"] == "out_of_scope"
    [said] = ShadowAnswer.objects.filter(generation=generation)
    assert (said.champion_intents, said.intents, said.agrees) == ([], [], True)
