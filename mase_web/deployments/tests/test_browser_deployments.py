"""In real Chromium: an operator opens a trajectory on /review/, forces the breaker open on the deployment
page with a reason, sends the next ticket and watches the keyword-router fallback answer it."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token

from mase_web.accounts.models import Membership, Project, Role
from mase_web.deployments.inference import TicketRequest, run_ticket
from mase_web.deployments.models import BreakerTransition, Deployment, Episode
from mase_web.deployments.tests.conftest import fresh_text, make_deployment, team_spec

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-password-1"


def sign_in(page, base_url: str, next_path: str, role: str = Role.OPERATOR):
    """A user with ``role`` in a fresh project, signed in through the login page."""
    user = get_user_model().objects.create_user(role, password=PASSWORD)
    project = Project.objects.create(name="shop")
    Membership.objects.create(project=project, user=user, role=role)
    page.goto(f"{base_url}{next_path}")
    page.get_by_label("Username").fill(role)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(re.escape(next_path) + r"$"))
    return user, project


def warm_up(base_url: str, user, deployment_id: int) -> None:
    """The server's first ticket loads the team (seconds); the page should not wait for that."""
    request = urllib.request.Request(
        f"{base_url}/api/deployments/{deployment_id}/tickets/",
        data=json.dumps({"text": fresh_text("hello")}).encode(),
        headers={
            "Authorization": f"Token {Token.objects.create(user=user).key}",
            "Content-Type": "application/json",
        },
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        assert response.status == 201


def test_operator_reviews_a_trajectory_forces_the_breaker_and_sees_the_fallback_answer(
    live_services, browser_page, trained_checkpoint, tiny_backbone_dir
):
    page = browser_page
    page.set_default_timeout(30_000)
    base = live_services.base_url
    user, project = sign_in(page, base, "/review/")
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir), name="shop front")
    earlier, _ = run_ticket(deployment, TicketRequest(fresh_text("where is my parcel? it is late")), "api")
    warm_up(base, user, deployment.pk)

    # Review: one row per ticket with the reply; the row opens its steps, a step the trajectory.
    page.reload()
    page.get_by_test_id("episodes").wait_for()
    page.get_by_placeholder("refund, keyword rule, logistics…").fill("parcel")
    page.get_by_test_id("episode-count").filter(has_text=re.compile(r"^1$")).wait_for()
    row = page.get_by_test_id(f"episode-{earlier.pk}")
    reply = earlier.result["reply"]["text"]
    assert earlier.task_text in row.inner_text()
    assert " ".join(reply.split())[:40] in " ".join(row.get_by_test_id("episode-reply").inner_text().split())
    row.get_by_role("button", name=re.compile(r"^Decisions")).click()
    steps = page.get_by_test_id(f"episode-steps-{earlier.pk}")
    steps.get_by_test_id("decisions").wait_for()
    held_back = steps.get_by_role("button", name=re.compile("where an agent held back"))
    if held_back.count():  # the steps where agents passed are there on demand
        held_back.click()
    assert steps.get_by_test_id("decisions").locator("tbody tr").count() == earlier.steps.count()
    steps.get_by_role("button", name="Trajectory").first.click()
    trajectory = page.get_by_test_id("trajectory")
    trajectory.get_by_text(earlier.task_text).wait_for()
    assert " ".join(reply.split())[:40] in " ".join(
        trajectory.get_by_test_id("trajectory-reply").inner_text().split()
    )
    steps = earlier.result["steps"]
    trajectory.get_by_test_id("trajectory-step").filter(has_text=f"Step 1 of {steps}").wait_for()
    assert trajectory.get_by_test_id("decision").count() == 4
    page.wait_for_function(
        "() => Number(document.querySelector(\"[data-testid='attention-heatmap']\")?.dataset.renderedPoints ?? 0) >= 16"
    )
    if steps > 1:
        trajectory.get_by_role("button", name="Next step ▶").click()
        trajectory.get_by_test_id("trajectory-step").filter(has_text=f"Step 2 of {steps}").wait_for()

    # The deployment page: force the breaker open with a reason.
    page.goto(f"{base}/deployments/{deployment.pk}/")
    page.get_by_test_id("stream-status").filter(has_text="live").wait_for()
    page.get_by_test_id("breaker-state").filter(has_text="closed").wait_for()
    form = page.get_by_role("form", name="Force the breaker")
    form.get_by_role("button", name="Force open").click()
    page.get_by_role("alert").filter(has_text="reason").wait_for()  # no reason: refused, nothing changes
    form.get_by_label("Reason").fill("answers about refunds look wrong")
    form.get_by_role("button", name="Force open").click()
    page.get_by_test_id("breaker-state").filter(has_text="open").wait_for()
    page.get_by_test_id("transitions").get_by_text("answers about refunds look wrong").wait_for()
    page.get_by_test_id("alert-feed").get_by_text("circuit_breaker.open").wait_for()

    # The next ticket: the keyword router answers, and the page says so step by step.
    ticket = fresh_text("I was charged twice and want a refund")
    page.get_by_label("Customer message").fill(ticket)
    page.get_by_role("button", name="Send to the team").click()
    answer = page.get_by_test_id("ticket-answer")
    answer.wait_for()
    assert "answered by fallback" in answer.get_by_test_id("answered-by").inner_text()
    sources = page.get_by_test_id("steps").get_by_test_id("decision-source").all_inner_texts()
    assert sources and set(sources) == {"fallback"}
    assert "refund" in answer.inner_text()  # the keyword rules routed the refund

    episode = Episode.objects.get(task_text=ticket)
    assert episode.source == "browser" and episode.created_by == user
    assert episode.result["sources"]["fallback"] == episode.result["steps"] > 0
    [forced] = BreakerTransition.objects.filter(deployment=deployment)
    assert (forced.to_state, forced.actor, forced.why) == ("open", user, "answers about refunds look wrong")


def test_product_manager_stops_and_resumes_a_deployment_from_the_list(
    live_services, browser_page, trained_checkpoint, tiny_backbone_dir
):
    page = browser_page
    page.set_default_timeout(30_000)
    _, project = sign_in(page, live_services.base_url, "/deployments/", role=Role.PRODUCT_MANAGER)
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir), name="shop front")
    page.reload()
    serving = page.get_by_test_id(f"serving-{deployment.pk}")
    serving.get_by_text("active").wait_for()
    serving.get_by_role("button", name="Stop").click()
    serving.get_by_role("button", name="Resume").wait_for()
    assert "stopped" in serving.inner_text()
    assert Deployment.objects.get(pk=deployment.pk).status == "stopped"
    serving.get_by_role("button", name="Resume").click()
    serving.get_by_role("button", name="Stop").wait_for()
    assert Deployment.objects.get(pk=deployment.pk).status == "active"
