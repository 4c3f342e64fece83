"""In real Chromium, the team a product manager draws is the team that trains and serves (issue 20):
the customer-service template's logistics agent is split on the canvas into "tracking" (order tracking,
delivery delays) and a new "address_changes" agent (address changes), each with its prompt and links;
the version is published, launched and deployed from the browser, and a tracking ticket and an
address-change ticket sent from the ticket console are each answered by the new owner — by the model,
not the keyword-router fallback (the decision log says which). The review page and the learned-
communication overlay then show the drawn agents.

The run trains with the template's own settings unless MASE_COMPOSE_EPISODES is set, in which case the
launch form's episode override is used (and the run records it as an override)."""

from __future__ import annotations

import os
import re
import time

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.sync_api import expect

from mase_web.accounts.models import Membership, Project, Role
from mase_web.deployments.models import Deployment, Episode
from mase_web.runs.models import Run
from mase_web.workflows.models import Workflow

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

TEMPLATE_NAME = "Customer service"
TRACKING_PROMPT = (
    "You are the tracking agent. Tell the customer where the order is now and explain late deliveries."
)
ADDRESS_PROMPT = "You are the address agent. Change or correct the delivery address of the customer's order."
TICKETS = {
    # ticket text -> (the agent that must answer it, the action that answers it)
    "where is my order? the tracking page shows nothing": ("tracking", "track_order"),
    "please change the delivery address of my order to 12 Baker Street": (
        "address_changes",
        "change_address",
    ),
}
EPISODES = os.environ.get("MASE_COMPOSE_EPISODES", "")


def signed_in(
    page, base_url: str, role: str = Role.PRODUCT_MANAGER, project: Project | None = None
) -> Project:
    """A user with ``role`` in ``project`` (a fresh one by default), signed in through a real session cookie."""
    user = get_user_model().objects.create_user(f"composer_{role}")
    project = project or Project.objects.create(name="Shop")
    Membership.objects.create(project=project, user=user, role=role)
    client = Client()
    client.force_login(user)
    page.context.clear_cookies()
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}]
    )
    return project


def link(page, source: str, target: str, kind: str) -> None:
    """Drag a link on the canvas: bottom → top dots for communication, right → left for a dependency."""
    out, into = ("bottom", "top") if kind == "communication" else ("right", "left")
    page.get_by_test_id(f"agent-node-{source}").locator(f".react-flow__handle-{out}").drag_to(
        page.get_by_test_id(f"agent-node-{target}").locator(f".react-flow__handle-{into}")
    )
    # a link back along an existing one is drawn with it, as one two-way link
    drawn = f'.react-flow__edge[aria-label^="{kind} edge from {source} to {target}"]'
    back = f'.react-flow__edge[aria-label="{kind} edge from {target} to {source} and back"]'
    page.locator(f"{drawn}, {back}").first.wait_for()


def split_logistics(page) -> None:
    """On the canvas: logistics becomes "tracking" without the address change; a new agent takes it."""
    page.get_by_test_id("agent-node-logistics").click()
    inspector = page.get_by_test_id("agent-inspector")
    ident = inspector.get_by_label("Id", exact=True)
    ident.fill("tracking")
    ident.press("Enter")
    page.get_by_test_id("agent-node-tracking").wait_for()
    inspector.get_by_test_id("agent-prompt").fill(TRACKING_PROMPT)
    inspector.get_by_test_id("intent-address_change").uncheck()
    page.get_by_test_id("problems").get_by_text("address_change").first.wait_for()  # nobody owns it now

    canvas = page.get_by_test_id("canvas")
    box = canvas.bounding_box()
    page.get_by_test_id("palette-custom").drag_to(
        canvas, target_position={"x": box["width"] * 0.12, "y": box["height"] * 0.9}
    )
    page.get_by_test_id("agent-node-custom_agent").click()
    ident = page.get_by_test_id("agent-inspector").get_by_label("Id", exact=True)
    ident.fill("address_changes")
    ident.press("Enter")
    node = page.get_by_test_id("agent-node-address_changes")
    node.wait_for()
    inspector = page.get_by_test_id("agent-inspector")
    inspector.get_by_test_id("agent-prompt").fill(ADDRESS_PROMPT)
    inspector.get_by_test_id("intent-address_change").check()
    link(page, "address_changes", "quality_supervisor", "communication")
    link(page, "quality_supervisor", "address_changes", "communication")
    link(page, "address_changes", "quality_supervisor", "dependency")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.get_by_test_id("save-status").filter(has_text="All changes saved").wait_for()


def send(page, text: str) -> None:
    page.get_by_label("Customer message").fill(text)
    page.get_by_role("button", name="Send to the team").click()
    page.get_by_test_id("ticket-answer").wait_for(timeout=120_000)


@pytest.mark.timeout(2400)  # the template's own training: about five minutes on two busy CPU cores
def test_a_split_logistics_team_trains_deploys_and_answers_by_its_new_owners(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(30_000)
    base = live_services.base_url
    started = time.monotonic()
    project = signed_in(page, base)

    # Gallery → designer: the customer-service template, then the split drawn on the canvas.
    page.goto(f"{base}/workflows/")
    page.get_by_role("button", name=f"Use {TEMPLATE_NAME}", exact=True).click()
    page.wait_for_url(re.compile(r"/workflows/\d+/$"))
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    workflow = Workflow.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    split_logistics(page)
    workflow.refresh_from_db()
    agents = {a["id"]: a for a in workflow.spec["agents"]}
    assert "logistics" not in agents
    assert agents["tracking"]["intents"] == ["order_tracking", "delivery_delay"]
    assert agents["address_changes"]["intents"] == ["address_change"]
    assert agents["address_changes"]["prompt"] == ADDRESS_PROMPT
    assert {
        "source": "address_changes",
        "target": "quality_supervisor",
        "kind": "communication",
    } in workflow.spec["edges"]
    # the keyword router's delivery rule followed the rename
    assert "tracking" in {r["route_to"] for r in workflow.spec["fallback"]["rules"]}

    # Publish, then launch the version from its history entry.
    page.get_by_role("tab", name="History").click()
    page.get_by_test_id("publish-note").fill("Logistics split into tracking and address changes")
    page.get_by_role("button", name="Publish version").click()
    page.get_by_text("Published version 1.").wait_for()
    version = page.get_by_test_id("version-1")
    version.get_by_role("button", name="Launch run").click()
    if EPISODES:
        version.get_by_label("Episodes (optional)").fill(EPISODES)
    version.get_by_role("button", name="Launch v1").click()
    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    run = Run.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert run.project_id == project.pk and run.source.get("version") == 1
    assert run.source.get("overrides", {}) == ({"episodes": int(EPISODES)} if EPISODES else {})
    page.get_by_test_id("run-state").filter(has_text="succeeded").wait_for(timeout=1_500_000)
    print(f"designer → trained run: {time.monotonic() - started:.0f} s")

    # Deploy the run from the browser.
    page.goto(f"{base}/deployments/")
    form = page.get_by_role("form", name="Deploy a run")
    form.locator(f"option[value='{run.pk}']").wait_for(state="attached")
    form.get_by_label("Trained run").select_option(str(run.pk))
    form.get_by_label("Name").fill("split shop")
    form.get_by_role("button", name="Deploy").click()
    page.wait_for_url(re.compile(r"/deployments/\d+/$"))
    deployment = Deployment.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert deployment.run_id == run.pk

    # Each ticket is answered by its new owner, and by the model: the page's decision cards say so,
    # and so does the decision log.
    for text, (owner, action) in TICKETS.items():
        send(page, text)
        answer = page.get_by_test_id("ticket-answer")
        expect(answer.get_by_test_id("answered-by")).to_have_text("answered by model")
        card = (
            page.locator(".ticket-run [data-testid=decision]")
            .filter(has=page.locator(f"b:text-is('{owner}')"))
            .filter(has=page.locator(f".decision-action:text-is('{action}')"))
        )
        expect(card.first.get_by_test_id("decision-source")).to_have_text("model")
        episode = Episode.objects.filter(deployment=deployment, task_text=text).latest("pk")
        answered = episode.steps.filter(action=action)
        assert {(s.agent, s.source) for s in answered} == {(owner, "model")}, list(answered.values())
        assert not episode.steps.filter(source="fallback").exists()

    # The learned-communication overlay draws the trained links between the drawn agents.
    page.goto(f"{base}/workflows/{workflow.pk}/")
    page.get_by_test_id("agent-node-address_changes").wait_for()
    page.wait_for_function(
        "() => { const t = document.querySelector('[data-testid=overlay-toggle]'); return !!t && !t.disabled; }"
    )
    page.get_by_test_id("overlay-toggle").click()
    assert page.get_by_test_id("overlay-run").input_value() == str(run.pk)
    page.get_by_test_id("overlay-threshold").fill("0")
    page.locator(".react-flow__edge.edge-learned").first.wait_for()
    labels = page.locator(".react-flow__edge.edge-learned").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    )
    assert any("address_changes" in (label or "") for label in labels), labels
    assert not any("logistics" in (label or "") for label in labels), labels

    # The review page (an operator's) lists the tickets, each with the drawn agent that decided it.
    signed_in(page, base, Role.OPERATOR, project)
    page.goto(f"{base}/review/")
    deciders = page.get_by_test_id("episodes").get_by_test_id("episode-decided-by")
    deciders.first.wait_for()
    for agent in ("Tracking", "Address changes"):
        deciders.get_by_text(agent, exact=True).first.wait_for()
    assert deciders.get_by_text("Logistics", exact=True).count() == 0
