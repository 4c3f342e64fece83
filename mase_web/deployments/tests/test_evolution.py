"""A deployment's evolution: the lineage API and its permissions, the frozen evaluation slice (never
trained on), the minimum interval between evolutions, a challenger judged on the slice through serving
runtimes (not promoted unless better), and one-click promotion and rollback, recorded."""

from __future__ import annotations

import shutil

import pytest
from django.test import TestCase

from mase_web.accounts.models import Role
from mase_web.datasets.facade import add_rows, deployment_dataset
from mase_web.deployments.evolution import evaluation_slice, in_slice, policy_of, training_rows
from mase_web.deployments.evolution_eval import judge, watch_generation
from mase_web.deployments.models import Correction, Deployment, Episode, Generation
from mase_web.deployments.tests.conftest import client_for, make_deployment, make_trained_run, team_spec

pytestmark = pytest.mark.django_db

TEXTS = [
    ("where is my parcel, it has not arrived", ["order_tracking"]),
    ("I want my money back for the blender", ["return_refund"]),
    ("the vase came smashed into pieces", ["damaged_item"]),
    ("my delivery is three days late", ["delivery_delay"]),
]


@pytest.fixture
def deployed(team, trained_checkpoint, tiny_backbone_dir):
    project, users = team
    return make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir)), users


def corrected_traffic(deployment: Deployment, n: int, user=None, start: int = 0) -> list[Episode]:
    """``n`` tickets of the deployment, each corrected by an operator (rows as a correction writes them)."""
    episodes = []
    for i in range(start, start + n):
        text, intents = TEXTS[i % len(TEXTS)]
        episode = Episode.objects.create(
            deployment=deployment, request_id=f"evo-{deployment.pk}-{i}", task_text=f"{text} (#{i})",
            status="completed",
        )  # fmt: skip
        Correction.objects.create(episode=episode, intents=intents, corrected_by=user)
        episodes.append(episode)
    return episodes


def give_slice(deployment: Deployment, n: int = 2) -> list[Episode]:
    """``n`` corrected tickets, all in the deployment's evaluation slice (Evolve refuses an empty slice)."""
    deployment.evolution = {**(deployment.evolution or {}), "slice_every": 1}
    deployment.save(update_fields=["evolution"])
    return corrected_traffic(deployment, n, start=1000)


def challenger_of(deployment: Deployment, checkpoint, tmp_path, number: int = 2) -> Generation:
    """A trained generation of the deployment whose run wrote a copy of ``checkpoint`` (same weights,
    another directory: a runtime of its own)."""
    copy = tmp_path / f"generation-{number}"
    shutil.copytree(checkpoint, copy)
    run = make_trained_run(deployment.project, copy, deployment.spec)
    from mase_web.deployments.evolution import first_generation

    parent = first_generation(deployment)
    return Generation.objects.create(
        deployment=deployment, number=number, run=run, checkpoint=str(copy), spec=deployment.spec,
        parent=parent, phase=Generation.Phase.READY, status=Generation.Status.CANDIDATE,
        reason="trained on 40 corrected tickets",
    )  # fmt: skip


def test_the_lineage_starts_with_the_deployed_team_and_is_read_by_members_only(deployed):
    deployment, users = deployed
    annotator = client_for(users[Role.ANNOTATOR])  # sees no deployment, as elsewhere
    assert annotator.get(f"/api/deployments/{deployment.pk}/generations/").status_code == 404
    for role in (Role.OPERATOR, Role.PRODUCT_MANAGER):
        answer = client_for(users[role]).get(f"/api/deployments/{deployment.pk}/generations/")
        assert answer.status_code == 200, answer.content
    body = answer.json()
    assert [(g["number"], g["status"], g["run"]) for g in body["generations"]] == [
        (1, "champion", deployment.run_id)
    ]
    assert not body["generations"][0]["checkpoint"].startswith("/")  # never the server's path
    stranger = client_for(users["stranger"])
    for path in ("generations/", "evolve/", "rollback/", "generations/1/promote/"):
        call = stranger.get if path == "generations/" else stranger.post
        assert call(f"/api/deployments/{deployment.pk}/{path}").status_code == 404, path


def test_only_product_managers_and_admins_evolve_promote_or_roll_back(deployed):
    deployment, users = deployed
    client = client_for(users[Role.OPERATOR])
    for path in ("evolve/", "rollback/", "generations/1/promote/"):
        assert client.post(f"/api/deployments/{deployment.pk}/{path}").status_code == 403, path


def test_the_slice_is_frozen_grows_with_traffic_and_is_never_trained_on(deployed):
    deployment, users = deployed
    deployment.evolution = {"slice_every": 3}
    episodes = corrected_traffic(deployment, 30)
    policy = policy_of(deployment)
    first = {t["episode"] for t in evaluation_slice(deployment, policy)}
    assert 0 < len(first) < 30
    more = corrected_traffic(deployment, 30, start=30)
    grown = {t["episode"] for t in evaluation_slice(deployment, policy)}
    assert first < grown  # grown with traffic, and no ticket drawn before left it
    assert grown - first <= {e.pk for e in more}
    dataset = deployment_dataset(deployment.pk, deployment.project_id)
    rows = [
        {"text": e.task_text, "intents": ["order_tracking"], "metadata": {"episode": e.pk}} for e in episodes
    ]
    add_rows(dataset, rows, "corrected", seed=1)
    trained, _ = training_rows(deployment, policy)
    assert trained, "some corrected rows reach training"
    assert not {r["episode"] for r in trained} & first
    assert all(in_slice(deployment.pk, e, 3) for e in first)


def test_evolve_on_an_empty_slice_is_refused_with_why_and_how_many_tickets_it_needs(deployed):
    deployment, users = deployed
    pm = client_for(users[Role.PRODUCT_MANAGER])
    lineage = pm.get(f"/api/deployments/{deployment.pk}/generations/").json()
    assert lineage["slice_tickets"] == 0 and "evaluation slice is empty" in lineage["evolve_refusal"]
    answer = pm.post(f"/api/deployments/{deployment.pk}/evolve/")
    assert answer.status_code == 400, answer.content
    detail = answer.json()["detail"]
    assert "evaluation slice is empty" in detail and "at least 100 slice tickets" in detail
    assert detail == lineage["evolve_refusal"]  # the page says what the API would answer
    assert not Generation.objects.filter(deployment=deployment, number=2).exists()
    give_slice(deployment, 1)
    assert pm.get(f"/api/deployments/{deployment.pk}/generations/").json()["evolve_refusal"] is None
    assert pm.post(f"/api/deployments/{deployment.pk}/evolve/").status_code == 202


def test_evolving_again_within_the_minimum_interval_is_refused_with_the_reason(deployed, settings):
    deployment, users = deployed
    give_slice(deployment)
    pm = client_for(users[Role.PRODUCT_MANAGER])
    answer = pm.post(f"/api/deployments/{deployment.pk}/evolve/")
    assert answer.status_code == 202, answer.content
    generation = answer.json()
    assert (generation["number"], generation["phase"], generation["parent"]) == (2, "training", 1)
    assert "tickets" in generation["data"] and "start" in generation["data"]
    busy = pm.post(f"/api/deployments/{deployment.pk}/evolve/")
    assert busy.status_code == 400 and "already training" in busy.json()["detail"]
    Generation.objects.filter(deployment=deployment, number=2).update(phase=Generation.Phase.FAILED)
    soon = pm.post(f"/api/deployments/{deployment.pk}/evolve/")
    assert soon.status_code == 429
    assert "minimum interval" in soon.json()["detail"]


def test_a_challenger_no_better_than_the_champion_stays_a_candidate_with_the_reason(
    deployed, tmp_path, settings
):
    """Through the API: its run has succeeded, reading the lineage has it judged (inline here, a worker in
    production) and, the same weights answering alike, it is not promoted though the policy promotes."""
    settings.MASE_EVALUATE_INLINE = True
    deployment, users = deployed
    deployment.evolution = {
        "slice_every": 1,
        "min_tickets": 8,
        "min_intent_tickets": 100,
        "auto_promote": True,
    }
    deployment.save(update_fields=["evolution"])
    corrected_traffic(deployment, 8)
    challenger = challenger_of(deployment, deployment.checkpoint, tmp_path)
    Generation.objects.filter(pk=challenger.pk).update(phase=Generation.Phase.TRAINING, checkpoint="")
    pm = client_for(users[Role.PRODUCT_MANAGER])
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert pm.get(f"/api/deployments/{deployment.pk}/generations/").status_code == 200
    shown = {
        g["number"]: g for g in pm.get(f"/api/deployments/{deployment.pk}/generations/").json()["generations"]
    }
    assert (shown[2]["phase"], shown[2]["status"], shown[1]["status"]) == ("ready", "candidate", "champion")
    challenger.refresh_from_db()
    comparison = challenger.comparison
    assert comparison["tickets"] == 8 and comparison["gain"] == 0.0  # the same weights answer alike
    assert (challenger.status, challenger.phase) == ("candidate", "ready")
    assert "below the declared margin" in challenger.reason
    deployment.refresh_from_db()
    assert deployment.run_id != challenger.run_id  # still the champion serving


def test_promotion_and_rollback_are_one_click_each_and_recorded(deployed, tmp_path):
    deployment, users = deployed
    challenger = challenger_of(deployment, deployment.checkpoint, tmp_path)
    pm = client_for(users[Role.PRODUCT_MANAGER])
    promoted = pm.post(f"/api/deployments/{deployment.pk}/generations/2/promote/")
    assert promoted.status_code == 200, promoted.content
    rows = {g["number"]: g for g in promoted.json()["generations"]}
    assert (rows[1]["status"], rows[2]["status"], rows[2]["promoted_by"]) == (
        "retired", "champion", users[Role.PRODUCT_MANAGER].username,
    )  # fmt: skip
    deployment.refresh_from_db()
    assert (deployment.run_id, deployment.checkpoint) == (challenger.run_id, challenger.checkpoint)
    again = pm.post(f"/api/deployments/{deployment.pk}/generations/2/promote/")
    assert again.status_code == 400 and "already the champion" in again.json()["detail"]
    assert pm.post(f"/api/deployments/{deployment.pk}/generations/9/promote/").status_code == 404
    back = pm.post(f"/api/deployments/{deployment.pk}/rollback/")
    assert back.status_code == 200, back.content
    rows = {g["number"]: g for g in back.json()["generations"]}
    assert (rows[1]["status"], rows[2]["status"]) == ("champion", "rejected")
    assert "rolled back from generation 2" in rows[1]["reason"]
    deployment.refresh_from_db()
    assert deployment.checkpoint == rows_checkpoint(deployment, 1)
    nothing = pm.post(f"/api/deployments/{deployment.pk}/rollback/")
    assert nothing.status_code == 400 and "no earlier generation" in nothing.json()["detail"]


def rows_checkpoint(deployment: Deployment, number: int) -> str:
    return Generation.objects.get(deployment=deployment, number=number).checkpoint


def test_a_deployment_evolves_by_itself_after_its_declared_number_of_corrections(deployed):
    deployment, users = deployed
    deployment.evolution = {"after_corrections": 2, "slice_every": 1}  # both corrections go to the slice
    deployment.save(update_fields=["evolution"])
    episodes = [
        Episode.objects.create(
            deployment=deployment, request_id=f"auto-{i}", task_text=text, status="completed"
        )
        for i, (text, _) in enumerate(TEXTS[:2])
    ]
    op = client_for(users[Role.OPERATOR])
    for episode, (_, intents) in zip(episodes, TEXTS, strict=False):
        with TestCase.captureOnCommitCallbacks(execute=True):
            answer = op.post(f"/api/episodes/{episode.pk}/correct/", {"intents": intents}, format="json")
        assert answer.status_code == 201, answer.content
    generations = Generation.objects.filter(deployment=deployment).order_by("number")
    assert [(g.number, g.data.get("trigger")) for g in generations] == [(1, None), (2, "after 2 corrections")]


def test_a_trigger_that_finds_the_slice_empty_skips_with_the_reason_recorded_once(deployed):
    from mase_web.deployments.evolution_eval import SKIPPED, maybe_evolve_after_correction

    deployment, _ = deployed
    deployment.evolution = {"after_corrections": 1, "slice_every": 100}
    deployment.save(update_fields=["evolution"])
    for episode in corrected_traffic(deployment, 4):
        if in_slice(deployment.pk, episode.pk, 100):
            episode.delete()  # keep only corrections that train: the slice stays empty
    assert not evaluation_slice(deployment, policy_of(deployment))
    assert maybe_evolve_after_correction(deployment) is None
    assert maybe_evolve_after_correction(deployment) is None  # the same reason again: one alert
    [alert] = deployment.alerts.filter(name=SKIPPED)
    assert alert.detail.startswith("after 1 correction: evolution skipped: the evaluation slice is empty")
    assert not Generation.objects.filter(deployment=deployment, number=2).exists()


def test_the_policy_is_set_by_those_who_deploy_with_field_errors_and_a_frozen_slice(deployed):
    deployment, users = deployed
    path = f"/api/deployments/{deployment.pk}/evolution/"
    pm = client_for(users[Role.PRODUCT_MANAGER])
    assert (
        client_for(users[Role.OPERATOR]).post(path, {"after_corrections": 5}, format="json").status_code
        == 403
    )
    assert client_for(users["stranger"]).get(path).status_code == 404
    answer = pm.post(path, {"after_corrections": 20, "min_interval_s": 600}, format="json")
    assert answer.status_code == 200, answer.content
    assert (answer.json()["after_corrections"], answer.json()["min_interval_s"], answer.json()["slice_every"]) == (
        20, 600, 5,
    )  # fmt: skip
    bad = pm.post(path, {"margin": 2, "min_interval_s": 1}, format="json")
    assert bad.status_code == 400 and set(bad.json()["errors"]) == {"margin", "min_interval_s"}
    corrected_traffic(deployment, 3)
    frozen = pm.post(path, {"slice_every": 10}, format="json")
    assert frozen.status_code == 400 and "drawn already" in frozen.json()["errors"]["slice_every"][0]


def test_a_champion_whose_checkpoint_is_gone_cannot_be_challenged(team, tiny_backbone_dir):
    project, users = team
    deployment = make_deployment(
        project, tiny_backbone_dir / "no-such-checkpoint", team_spec(tiny_backbone_dir)
    )
    answer = client_for(users[Role.ADMIN]).post(f"/api/deployments/{deployment.pk}/evolve/")
    assert answer.status_code == 400 and "not on disk" in answer.json()["detail"]
    assert "/" not in answer.json()["detail"].split(":")[0]  # no server path in the reason
    assert not Generation.objects.filter(deployment=deployment, number=2).exists()


def test_three_generations_without_a_declared_gain_raise_a_plateau_alert(deployed, tmp_path):
    deployment, users = deployed
    deployment.evolution = {"slice_every": 1, "min_tickets": 4, "min_intent_tickets": 100}
    deployment.save(update_fields=["evolution"])
    corrected_traffic(deployment, 4)
    for number in (2, 3, 4):
        judge(challenger_of(deployment, deployment.checkpoint, tmp_path, number=number))
        plateau = deployment.alerts.filter(name="evolution_plateau")
        assert plateau.count() == (1 if number == 4 else 0), number
    assert "generations 2, 3, 4 brought no declared gain" in plateau.get().detail


def test_a_watched_generation_is_settled_when_its_run_ends(deployed, tmp_path, settings):
    settings.MASE_EVALUATE_INLINE = True
    deployment, users = deployed
    deployment.evolution = {"slice_every": 1, "min_tickets": 4, "min_intent_tickets": 100}
    deployment.save(update_fields=["evolution"])
    corrected_traffic(deployment, 4)
    failed = challenger_of(deployment, deployment.checkpoint, tmp_path)
    Generation.objects.filter(pk=failed.pk).update(phase=Generation.Phase.TRAINING)
    failed.run.state = "failed"
    failed.run.save(update_fields=["state"])
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert watch_generation(failed.pk) == "failed"
    failed.refresh_from_db()
    assert (failed.status, failed.reason) == ("rejected", f"its training run {failed.run_id} failed")
    assert watch_generation(failed.pk) == "settled"


def test_out_of_scope_tickets_are_grouped_into_proposed_intents(deployed):
    deployment, users = deployed
    for i in range(4):
        Episode.objects.create(
            deployment=deployment, request_id=f"oos-{i}", task_text=f"my gift card code does not work ({i})",
            status=Episode.Status.OUT_OF_SCOPE,
        )  # fmt: skip
    path = f"/api/deployments/{deployment.pk}/intent-proposals/"
    assert client_for(users["stranger"]).get(path).status_code == 404
    answer = client_for(users[Role.OPERATOR]).get(path)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["tickets"] == 4
    assert sum(p["tickets"] for p in body["proposals"]) == 4 and "card" in body["proposals"][0]["name"]
