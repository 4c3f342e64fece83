"""A challenger's writer learns from the deployment's ratings reward model before it is judged
(deployments/writer_training.py, decision 0029): trained and saved beside its checkpoint when the reward model
is trusted, refused when it is no better than the most common star, carried over from the parent without one."""

from __future__ import annotations

import shutil

import pytest
import torch

from agents.backbone import Backbone
from mase_web.deployments.evolution import first_generation
from mase_web.deployments.inference import TicketRequest, run_ticket
from mase_web.deployments.models import Generation
from mase_web.deployments.tests.conftest import fresh_text, make_deployment, make_trained_run, team_spec
from mase_web.deployments.writer_training import teach_writer
from mase_web.feedback.models import FeedbackItem, FeedbackQueue, RewardModel
from mase_web.feedback.snapshots import deployment_episode_key
from serving.generation.styles import APOLOGY
from training.reply_writer import WRITER_FILE, WriterHead, load_writer, save_writer
from training.reward_model import save_reward_model, train_reward_model

pytestmark = pytest.mark.django_db
TRUSTED = {"accuracy": 0.8, "baseline_accuracy": 0.3, "n_heldout": 40}


def challenger(project, deployment, checkpoint, tmp_path) -> Generation:
    copy = tmp_path / "challenger"
    shutil.copytree(checkpoint, copy)
    run = make_trained_run(project, copy, deployment.spec)
    return Generation.objects.create(
        deployment=deployment, number=2, run=run, spec=deployment.spec, parent=first_generation(deployment),
        checkpoint=str(copy),
    )  # fmt: skip


def rated(project, deployment, backbone_dir, metrics) -> RewardModel:
    """A trained reward model of a rating queue of the deployment's episodes: replies with the apology
    opener were rated 5 stars, others 1."""
    episodes = list(deployment.episodes.all())
    queue = FeedbackQueue.objects.create(project=project, name="replies")
    for e in episodes:
        FeedbackItem.objects.create(
            queue=queue, kind="episode", episode_key=deployment_episode_key(e), snapshot={}
        )
    reader = Backbone.load(str(backbone_dir), pooling="mean", max_length=256)
    texts = [
        f"Task: {e.task_text}\nReply: {o}{e.result['reply']['text']}" for e in episodes for o in ("", APOLOGY)
    ]
    head, _ = train_reward_model(reader.encode(texts), [1, 5] * len(episodes), heldout_share=0.25)
    model = RewardModel.objects.create(
        queue=queue, state="succeeded", progress=1.0, metrics=metrics, backbone=backbone_dir.name
    )
    model.path = str(save_reward_model(head, model.file_path, metrics))
    model.save(update_fields=["path"])
    return model


def test_a_trusted_reward_model_teaches_the_challengers_writer(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    project, _ = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    for _ in range(6):
        run_ticket(deployment, TicketRequest(text=fresh_text()), "api")
    generation = challenger(project, deployment, trained_checkpoint, tmp_path)
    assert teach_writer(generation) is None  # no reward model, no parent writer: replies stay plain
    model = rated(project, deployment, tiny_backbone_dir, TRUSTED)
    taught = teach_writer(generation)
    assert taught["reward_model"] == model.pk and taught["tickets"] == 6
    assert load_writer(generation.checkpoint) is not None and set(taught["chosen"]) >= {"plain", "apologetic"}
    assert load_writer(trained_checkpoint) is None  # the parent's checkpoint is untouched


def test_an_untrusted_reward_model_is_refused_and_a_parents_writer_is_carried(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    project, _ = team
    parent = tmp_path / "parent"
    shutil.copytree(trained_checkpoint, parent)
    deployment = make_deployment(project, parent, team_spec(tiny_backbone_dir))
    for _ in range(3):
        run_ticket(deployment, TicketRequest(text=fresh_text()), "api")
    generation = challenger(project, deployment, trained_checkpoint, tmp_path)
    rated(
        project, deployment, tiny_backbone_dir, {"accuracy": 0.2, "baseline_accuracy": 0.3, "n_heldout": 40}
    )
    taught = teach_writer(generation)
    assert "no better than always giving the most common star" in taught["refused"]
    assert not (tmp_path / "challenger" / WRITER_FILE).exists()
    RewardModel.objects.all().delete()
    save_writer(WriterHead(4), parent, {})
    assert teach_writer(generation) == {"carried_from_generation": 1}
    assert (tmp_path / "challenger" / WRITER_FILE).is_file()
    torch.testing.assert_close(load_writer(generation.checkpoint).linear.weight, torch.zeros(4, 4))
