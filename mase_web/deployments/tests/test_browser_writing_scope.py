"""In real Chromium: an operator asks a deployed code-generation team (the shipped template, trained for a
moment) for a task it has and reads the code it wrote, its tests' verdict and the team's signature; then
sends a customer's ticket, which the team declines, saying what it can do instead."""

from __future__ import annotations

import json
import urllib.request

import pytest
import torch
from rest_framework.authtoken.models import Token

from agents.envs.customer_service.env import CustomerServiceEnv
from mase_web.deployments.tests.conftest import make_deployment
from mase_web.deployments.tests.test_browser_deployments import sign_in, warm_up
from mase_web.deployments.tests.test_out_of_scope import template_spec

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def code_team(tiny_backbone_dir, tmp_path_factory):
    from agents.backbone import Backbone
    from agents.spec import load_spec
    from training.mappo import run_spec

    torch.set_num_threads(1)
    spec = template_spec("code_generation", tiny_backbone_dir)
    out = tmp_path_factory.mktemp("code_team")
    run_spec(
        load_spec(spec), out, backbone=Backbone.load(str(tiny_backbone_dir), pooling="mean", max_length=32)
    )
    return spec, out / "checkpoints" / "mappo" / "last"


def first_declined(base_url: str, user, deployment_id: int) -> str:
    """The first of twenty customer tickets the team declines. The tiny backbone's vectors barely mean
    anything, so not every ticket falls under its floor (the default backbone declines them all:
    tests/serving/test_request_matching.py)."""
    token, _ = Token.objects.get_or_create(user=user)
    for text in CustomerServiceEnv.example_requests()[:20]:
        request = urllib.request.Request(
            f"{base_url}/api/deployments/{deployment_id}/tickets/",
            data=json.dumps({"text": text}).encode(),
            headers={"Authorization": f"Token {token.key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=120) as response:
            if json.load(response)["result"]["status"] == "out_of_scope":
                return text
    raise AssertionError("the team declined none of twenty customer tickets")


def test_a_code_team_shows_its_code_and_declines_a_ticket(live_services, browser_page, code_team):
    page = browser_page
    page.set_default_timeout(40_000)
    base = live_services.base_url
    spec, checkpoint = code_team
    user, project = sign_in(page, base, "/deployments/")
    deployment = make_deployment(project, checkpoint, spec, name="coder")
    warm_up(base, user, deployment.pk)

    page.goto(f"{base}/deployments/{deployment.pk}/")
    page.get_by_test_id("stream-status").filter(has_text="live").wait_for()
    page.get_by_label("What should the code do?").fill("Please solve task cg02")
    page.get_by_role("button", name="Send to the team").click()
    answer = page.get_by_test_id("ticket-answer")
    code = answer.get_by_test_id("reply-code")
    code.wait_for()
    assert code.inner_text().startswith("def clamp(")
    reply = answer.get_by_test_id("reply").inner_text()
    assert "The hidden tests" in reply and "— Code generation" in reply and "Customer service" not in reply

    page.get_by_label("What should the code do?").fill(first_declined(base, user, deployment.pk))
    page.get_by_role("button", name="Send to the team").click()
    declined = (
        page.get_by_test_id("ticket-answer").get_by_test_id("reply").filter(has_text="cannot do this request")
    )
    declined.wait_for()
    assert "It can write functions such as" in declined.inner_text()
    assert page.get_by_test_id("request-match").inner_text().startswith("Task: none: the nearest")
    assert page.get_by_test_id("reply-code").count() == 0
