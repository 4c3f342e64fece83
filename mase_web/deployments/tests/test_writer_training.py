"""A challenger's writer learns from the deployment's rated replies before it is judged
(deployments/writer_training.py, decisions 0029 and 0035): a reward model of (ticket, style) is fitted on the
ratings and, when it predicts held-out ratings better than the mean star, teaches a writer saved beside the
challenger's checkpoint; one that predicts nothing is refused and the parent's writer is carried over."""

from __future__ import annotations

import random
import shutil

import pytest
import torch

from agents.backbone import Backbone
from mase_web.accounts.models import Role
from mase_web.deployments.evolution import first_generation
from mase_web.deployments.models import Episode, Generation
from mase_web.deployments.tests.conftest import make_deployment, make_trained_run, team_spec
from mase_web.deployments.writer_training import teach_writer
from mase_web.feedback.models import FeedbackItem, FeedbackQueue, Rating
from mase_web.feedback.snapshots import deployment_episode_key
from training.reply_writer import STYLES, WITH_SURFACE, WRITER_FILE, WriterHead, load_writer, save_writer

pytestmark = pytest.mark.django_db
ANGRY, CALM = "my lamp arrived broken and I want a refund now!!! order {}", "where is my parcel, order {}"


def challenger(project, deployment, checkpoint, tmp_path) -> Generation:
    copy = tmp_path / "challenger"
    shutil.copytree(checkpoint, copy)
    run = make_trained_run(project, copy, deployment.spec)
    return Generation.objects.create(
        deployment=deployment, number=2, run=run, spec=deployment.spec, parent=first_generation(deployment),
        checkpoint=str(copy),
    )  # fmt: skip


def rate_replies(project, deployment, annotator, n: int = 160, stars_of=None, logged=lambda i: None) -> None:
    """``n`` answered tickets, half angry, each served a style drawn uniformly (an exploring deployment) and
    rated: by default 5 stars for an apology to an angry ticket or a plain reply to a calm one, else 2.
    ``logged(i)``: the reply's logged propensity (None: a reply served before they were logged)."""
    rng = random.Random(0)
    stars_of = stars_of or (lambda angry, style: 5 if style == ("apologetic" if angry else "plain") else 2)
    queue = FeedbackQueue.objects.create(project=project, name="replies")
    for i in range(n):
        angry, style = i % 2 == 0, rng.choice(STYLES)
        reply = {"parts": [{"text": "Done."}], "style": style, "explored": True}
        if logged(i) is not None:
            reply["propensity"] = logged(i)
        episode = Episode.objects.create(
            deployment=deployment, request_id=f"rated-{i}", task_text=(ANGRY if angry else CALM).format(i),
            status="completed", result={"reply": reply},
        )  # fmt: skip
        item = FeedbackItem.objects.create(
            queue=queue,
            kind="episode",
            episode_key=deployment_episode_key(episode),
            snapshot={},
            episode=episode,
        )
        Rating.objects.create(item=item, annotator=annotator, value=stars_of(angry, style))


def test_rated_replies_teach_the_challengers_writer_which_ticket_wants_which_style(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    generation = challenger(project, deployment, trained_checkpoint, tmp_path)
    assert teach_writer(generation) is None  # no ratings, no parent writer: replies stay plain
    rate_replies(project, deployment, users[Role.OPERATOR])
    taught = teach_writer(generation)
    assert taught["ratings"] == 160 and taught["explored"] == 160 and taught["tickets"] == 160
    assert taught["logged_propensities"] == 0  # replies served before decision 0039: the old assumption
    assert taught["reward_model"]["mse"] < taught["reward_model"]["mse_style_only"]
    writer = load_writer(generation.checkpoint)
    assert writer.inputs == WITH_SURFACE
    texts = [ANGRY.format("x1"), CALM.format("x2")]
    embedded = Backbone.load(str(tiny_backbone_dir), pooling="mean", max_length=32).encode(texts)
    assert writer.choose_for(embedded, texts) == ["apologetic", "plain"]
    assert load_writer(trained_checkpoint) is None  # the parent's checkpoint is untouched


def test_ratings_that_say_nothing_are_refused_and_a_parents_writer_is_carried(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    project, users = team
    parent = tmp_path / "parent"
    shutil.copytree(trained_checkpoint, parent)
    save_writer(WriterHead(4), parent, {})
    deployment = make_deployment(project, parent, team_spec(tiny_backbone_dir))
    generation = challenger(project, deployment, trained_checkpoint, tmp_path)
    assert teach_writer(generation) == {"carried_from_generation": 1}
    (tmp_path / "challenger" / WRITER_FILE).unlink()
    noise = random.Random(1)
    rate_replies(project, deployment, users[Role.OPERATOR], stars_of=lambda angry, style: noise.randint(1, 5))
    taught = teach_writer(generation)
    assert "no better than the mean star" in taught["refused"] and taught["carried_from_generation"] == 1
    torch.testing.assert_close(load_writer(generation.checkpoint).linear.weight, torch.zeros(4, 4))


def test_logged_propensities_reach_the_reward_model_and_odd_ones_count_as_unlogged(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    """Decision 0039: a rated reply's logged propensity is carried into the ratings the reward model is fitted
    on; replies without one (older) or with a value outside (0, 1] fall back to the style's share."""
    from mase_web.feedback.facade import deployment_rated_replies

    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    odd = {1: 0.0, 3: "x", 5: 1.5}
    rate_replies(
        project, deployment, users[Role.OPERATOR], logged=lambda i: odd.get(i, 0.25 if i < 120 else None)
    )
    rated = {r.ticket: r.propensity for r in deployment_rated_replies(deployment.pk)}
    assert rated[CALM.format(7)] == 0.25 and rated[CALM.format(121)] is None
    assert all(rated[CALM.format(i)] is None for i in odd)
    taught = teach_writer(challenger(project, deployment, trained_checkpoint, tmp_path))
    assert taught["logged_propensities"] == 117 and taught["reward_model"]["gain_over_plain"] > 0
