"""A deployed team with a writer saved beside its checkpoint (training/reply_writer.py) writes its replies in
the style the writer chooses, and the episode records it; without one, replies are plain and name no style."""

from __future__ import annotations

import random
import shutil

import pytest
import torch

from agents.backbone import Backbone
from mase_web.accounts.models import Role
from mase_web.deployments import runtimes, writing
from mase_web.deployments.inference import TicketRequest, run_ticket
from mase_web.deployments.models import Deployment, Reply
from mase_web.deployments.tests.conftest import (
    client_for,
    fresh_text,
    make_deployment,
    make_trained_run,
    team_spec,
)
from serving.generation.styles import APOLOGY
from training.reply_writer import STYLES, WriterHead, save_writer

pytestmark = pytest.mark.django_db


def ask(users, project, checkpoint, backbone_dir) -> dict:
    run = make_trained_run(project, checkpoint, team_spec(backbone_dir))
    made = client_for(users[Role.PRODUCT_MANAGER]).post("/api/deployments/", {"run": run.pk}, format="json")
    assert made.status_code == 201, made.content
    answered = client_for(users[Role.OPERATOR]).post(
        f"/api/deployments/{made.json()['id']}/tickets/", {"text": fresh_text()}, format="json"
    )
    assert answered.status_code == 201, answered.content
    return answered.json()


def test_the_saved_writer_chooses_the_style_and_the_episode_records_it(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    project, users = team
    writing.forget_all()  # writers built by earlier tests hold their own breakers
    plain = ask(users, project, trained_checkpoint, tiny_backbone_dir)
    assert "reply_style" not in plain["result"] and "style" not in plain["result"]["reply"]
    assert APOLOGY not in plain["result"]["reply"]["text"]

    checkpoint = tmp_path / "with_writer"
    shutil.copytree(trained_checkpoint, checkpoint)
    head = WriterHead(Backbone.load(str(tiny_backbone_dir), pooling="mean", max_length=32).dim)
    with torch.no_grad():
        head.linear.bias[STYLES.index("apologetic")] = 5.0  # every ticket: the apology opener
    save_writer(head, checkpoint, {"test": True})
    styled = ask(users, project, checkpoint, tiny_backbone_dir)
    reply = styled["result"]["reply"]
    assert styled["result"]["reply_style"] == "apologetic" and reply["style"] == "apologetic"
    # the writer serves its most likely style and nothing explores: served with probability 1 (decision 0039)
    assert styled["result"]["reply_style_propensity"] == 1.0 and reply["propensity"] == 1.0
    assert "propensity" not in plain["result"]["reply"]
    assert reply["text"].startswith(f"Hello,\n\n{APOLOGY}")
    assert Reply.objects.get(episode_id=styled["episode"]["id"]).text == reply["text"]
    writing.forget_all()


def test_a_declared_share_of_replies_explores_another_style_and_says_so(
    team, trained_checkpoint, tiny_backbone_dir
):
    """The deployment's style_explore (decision 0035): without a writer the champion writes plain, but a share
    of its replies is written in another style so that ratings contrast styles; each says it explored. A
    deployment at 0 explores none, and a share changed after the runtime is built applies on the next ticket."""
    project, _ = team
    writing.forget_all()
    explores = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir), name="explores")
    Deployment.objects.filter(pk=explores.pk).update(style_explore=0.2)
    explores.refresh_from_db()
    runtime = runtimes.runtime_for(explores)
    assert runtime.config.style_explore == 0.2
    runtime._style_rng = random.Random(4)
    replies = [run_ticket(explores, TicketRequest(text=fresh_text()), "api")[1]["reply"] for _ in range(30)]
    explored = [r for r in replies if r.get("explored")]
    assert 0 < len(explored) < 15 and all(r["style"] != "plain" for r in explored)
    assert all(r["style"] == "plain" for r in replies if not r.get("explored"))
    # each reply logs the probability its style was served with (decision 0039): the writer's choice (plain)
    # 1 - 0.2, each of the three other styles 0.2 / 3
    assert all(r["propensity"] == pytest.approx(0.2 / 3) for r in explored)
    assert all(r["propensity"] == pytest.approx(0.8) for r in replies if not r.get("explored"))

    plain = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir), name="plain")
    assert plain.style_explore == 0.0 and runtimes.runtime_for(plain).config.style_explore == 0.0
    replies = [run_ticket(plain, TicketRequest(text=fresh_text()), "api")[1]["reply"] for _ in range(30)]
    assert not any(r.get("explored") for r in replies)

    Deployment.objects.filter(pk=explores.pk).update(style_explore=0.0)  # a product manager turns it off
    explores.refresh_from_db()
    replies = [run_ticket(explores, TicketRequest(text=fresh_text()), "api")[1]["reply"] for _ in range(20)]
    assert runtime.config.style_explore == 0.0 and not any(r.get("explored") for r in replies)
    writing.forget_all()


def test_the_share_is_set_by_who_may_deploy_and_bounded(team, trained_checkpoint, tiny_backbone_dir):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    url = f"/api/deployments/{deployment.pk}/style-explore/"
    manager = client_for(users[Role.PRODUCT_MANAGER])
    assert manager.get(url).json() == {"style_explore": 0.0}
    answer = manager.post(url, {"style_explore": 0.15}, format="json")
    assert answer.status_code == 200 and answer.json() == {"style_explore": 0.15}
    assert manager.get(f"/api/deployments/{deployment.pk}/").json()["style_explore"] == 0.15

    refused = manager.post(url, {"style_explore": 0.3}, format="json")
    assert refused.status_code == 400 and "style_explore" in refused.json()["errors"]
    # said in the page's unit too: the page asks for a percent, so "less than or equal to 0.2" read as 0.2 %
    assert refused.json()["errors"]["style_explore"] == ["a share from 0 to 0.2 of replies (0 to 20 percent)"]
    below = manager.post(url, {"style_explore": -0.1}, format="json")
    assert below.json()["errors"]["style_explore"] == ["a share from 0 to 0.2 of replies (0 to 20 percent)"]
    operator = client_for(users[Role.OPERATOR])
    assert operator.get(url).status_code == 200
    refused = operator.post(url, {"style_explore": 0.1}, format="json")
    assert refused.status_code == 403
    assert "reply styles" in refused.json()["detail"]  # said "may evolve, promote or roll back its team"
    deployment.refresh_from_db()
    assert deployment.style_explore == 0.15
