"""What an operator and a product manager meet when they deploy and review (issue 23), in real Chromium:
the deploy list says why a run cannot be deployed, decisions get a review status (filtered, exported and
queued for annotation), a labelled batch shows its score, the heat map keeps whole agent names, and the
ticket console keeps the tickets sent from the page. Rows are written as the runtime writes them, so no
team has to be trained."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from mase_web.accounts.models import Membership, Project, Role
from mase_web.deployments.models import BatchJob, DecisionStep, Deployment, Episode
from mase_web.deployments.tests.conftest import make_trained_run
from mase_web.feedback.models import FeedbackItem
from mase_web.runs.models import Checkpoint

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
AGENTS = ["shopping_guide", "logistics", "dispute_mediator", "quality_supervisor"]
SPEC = {"agents": [{"id": a, "role": a} for a in AGENTS], "environment": {"name": "customer_service"}}


def signed_in(page, base_url: str, role: str):
    user = get_user_model().objects.create_user(f"ops_{role}")
    project = Project.objects.create(name="shop")
    Membership.objects.create(project=project, user=user, role=role)
    client = Client()
    client.force_login(user)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )
    return user, project


def deployment_with_an_episode(project) -> tuple[Deployment, Episode]:
    run = make_trained_run(project, None, SPEC)
    deployment = Deployment.objects.create(
        project=project, name="shop front", run=run, checkpoint="/none", spec=SPEC
    )
    episode = Episode.objects.create(
        deployment=deployment, request_id="api-1", task_text="my lamp arrived broken, refund please",
        status="completed", result={"info": {"predicted_intents": ["return_refund"]}},
    )  # fmt: skip
    for i, agent in enumerate(AGENTS):
        received = [{"from": other, "weight": 0.5} for other in AGENTS if other != agent][:2]
        DecisionStep.objects.create(
            episode=episode, step=1, agent=agent, observation="{}", action=f"act_{i}", source="model",
            confidence=0.9, messages={"received": received, "sent": []},
        )  # fmt: skip
    return deployment, episode


def test_review_status_filter_export_annotate_and_whole_agent_names(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    _, project = signed_in(page, base, Role.OPERATOR)
    _, episode = deployment_with_an_episode(project)
    logistics = episode.steps.get(agent="logistics")

    page.goto(f"{base}/review/")
    ticket = page.get_by_test_id(f"episode-{episode.pk}")
    assert "my lamp arrived broken, refund please" in ticket.inner_text()
    ticket.get_by_role("button", name=re.compile(r"^Decisions")).click()  # its steps, each with its own review
    row = page.get_by_test_id(f"review-{logistics.pk}")
    row.get_by_role("button", name="wrong…").click()
    row.get_by_label("Reason (wrong)").fill("the parcel was already delivered")
    row.get_by_role("button", name="Mark wrong").click()
    row.get_by_text("the parcel was already delivered").wait_for()
    row.get_by_role("button", name="Queue for annotation").click()
    row.get_by_text('Queued in "Decisions marked wrong".').wait_for()
    assert FeedbackItem.objects.get().step_id == logistics.pk

    page.get_by_label("Review status").select_option("wrong")
    page.get_by_test_id("episode-count").filter(has_text="1").wait_for()
    page.get_by_test_id(f"episode-review-{episode.pk}").get_by_text("wrong", exact=True).wait_for()
    export = page.get_by_role("link", name="Export decisions (JSONL)").get_attribute("href")
    assert "review_status=wrong" in export
    logistics.refresh_from_db()
    assert (logistics.review_status, logistics.review_reason) == ("wrong", "the parcel was already delivered")

    # The trajectory's heat map keeps whole agent names (no "opping_guide").
    page.get_by_label("Review status").select_option("")
    page.get_by_test_id("decisions").get_by_role("button", name="Trajectory").first.click()
    page.wait_for_function(
        "() => Number(document.querySelector(\"[data-testid='attention-heatmap']\")?.dataset.renderedPoints ?? 0) >= 16"
    )
    cut = page.evaluate(
        """() => {
          const chart = document.querySelector("[data-testid='attention-heatmap']");
          const frame = chart.getBoundingClientRect();
          return [...chart.querySelectorAll('.ytick text, .xtick text')]
            .filter((t) => { const b = t.getBoundingClientRect(); return b.left < frame.left - 0.5 || b.right > frame.right + 0.5 || b.bottom > frame.bottom + 0.5; })
            .map((t) => t.textContent);
        }"""
    )
    assert cut == []


def test_deploy_list_batch_score_and_ticket_history(live_services, browser_page, tmp_path):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    _, project = signed_in(page, base, Role.PRODUCT_MANAGER)
    deployment, _ = deployment_with_an_episode(project)

    # The deploy form: the REINFORCE run is listed disabled, with the reason.
    reinforce = make_trained_run(project, None, json.loads((EXAMPLES / "number_guessing.json").read_text()))
    reinforce.name = "guessers"
    reinforce.save(update_fields=["name"])
    ready = make_trained_run(project, None, json.loads((EXAMPLES / "customer_service.json").read_text()))
    (tmp_path / "last").mkdir()
    (tmp_path / "last" / "state.json").write_text("{}")
    Checkpoint.objects.create(run=ready, step=2, path=str(tmp_path / "last"))
    page.goto(f"{base}/deployments/")
    form = page.get_by_role("form", name="Deploy a run")
    option = form.locator(f"option[value='{reinforce.pk}']")
    option.wait_for(state="attached")
    assert option.is_disabled() and "cannot be deployed" in option.inner_text()
    assert not form.locator(f"option[value='{ready.pk}']").is_disabled()
    page.get_by_test_id("undeployable").locator("summary").click()
    page.get_by_test_id("undeployable").get_by_text("only MAPPO/IPPO teams can be deployed").wait_for()

    # A batch whose tickets carry intents shows its exact match and per-intent figures.
    tickets = [
        {"id": "t-1", "text": "where is my parcel", "intents": ["order_tracking"]},
        {"id": "t-2", "text": "broken lamp", "intents": ["return_refund", "damaged_item"]},
    ]
    batch = BatchJob.objects.create(
        deployment=deployment, tickets=tickets, total=2, done=2, state="succeeded"
    )
    for ticket, predicted in zip(tickets, (["order_tracking"], ["return_refund"]), strict=True):
        Episode.objects.create(
            deployment=deployment, request_id=f"b-{ticket['id']}", task_id=ticket["id"], task_text=ticket["text"],
            batch=batch, source="batch", status="completed", result={"info": {"predicted_intents": predicted}},
        )  # fmt: skip

    # Tickets sent from the page (answered here by a stand-in for the team) stay listed.
    answered = iter(range(100, 200))

    def answer(route):
        body = json.loads(route.request.post_data)
        n = next(answered)
        episode = {
            "id": n, "deployment": deployment.pk, "deployment_name": "shop front", "run": deployment.run_id,
            "request_id": f"browser-{n}", "task_id": "", "task_text": body["text"], "source": "browser",
            "batch": None, "status": "completed", "reward": None, "breaker_state": "closed",
            "created_by": "ops_product_manager", "created_at": "2026-12-01T20:00:00Z", "answer": ["order_tracking"],
            "sources": {"model": 1},
        }  # fmt: skip
        result = {
            "request_id": f"browser-{n}", "status": "completed", "steps": 1, "decisions": [],
            "sources": {"model": 1, "trial": 0, "fallback": 0}, "faults": [], "latency_ms": 12.0,
            "breaker": "closed", "info": {"predicted_intents": ["order_tracking"]},
        }  # fmt: skip
        route.fulfill(
            status=201,
            content_type="application/json",
            body=json.dumps({"episode": episode, "result": result}),
        )

    page.route(f"**/api/deployments/{deployment.pk}/tickets/", answer)
    page.goto(f"{base}/deployments/{deployment.pk}/")
    score = page.get_by_test_id("batch-score")
    score.get_by_text("Exact match 50.0%").wait_for()
    score.locator("summary").click()
    assert score.get_by_test_id("intent-damaged_item").inner_text().split("\t")[:3] == [
        "damaged item",
        "1",
        "0.0%",
    ]

    for text in ("where is my parcel?", "it was due on Monday"):
        page.get_by_label("Customer message").fill(text)
        page.get_by_role("button", name="Send to the team").click()
        page.get_by_test_id("ticket-history").get_by_text(f"“{text}”").wait_for()
    history = page.get_by_test_id("ticket-history").locator("li")
    assert history.count() == 2 and "it was due on Monday" in history.first.inner_text()
    page.reload()
    page.get_by_test_id("ticket-history").locator("li").nth(1).wait_for()
