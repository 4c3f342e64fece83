"""In real Chromium, as users of different roles: the navigation shows only what the role opens, pages the
user may not see answer with the site's own 404 page (no URL-pattern listing, no panels, no socket), the
operator reads an agent's settings in the read-only designer, and the favicon is served."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from mase_web.accounts.models import Membership, Project, Role
from mase_web.runs.models import Run
from mase_web.workflows.models import Workflow

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

TEMPLATES = Path(__file__).resolve().parents[3] / "examples"


def sign_in(page, base_url: str, username: str, role: str) -> Project:
    """A user with `role` in a fresh project, signed in (a real session row in the shared test database)."""
    user = get_user_model().objects.create_user(username)
    project = Project.objects.create(name=f"{username}'s team")
    Membership.objects.create(project=project, user=user, role=role)
    client = Client()
    client.force_login(user)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base_url}])
    return project


def nav_texts(page) -> list[str]:
    return [text.strip() for text in page.get_by_test_id("site-nav").locator("a").all_inner_texts()]


def test_annotator_sees_only_datasets_and_annotate_and_the_real_404_page(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    project = sign_in(page, base, "annie", Role.ANNOTATOR)
    workflow = Workflow.objects.create(
        project=project, name="Hidden", spec=json.loads((TEMPLATES / "research_report.json").read_text())
    )

    page.goto(f"{base}/")
    page.get_by_role("heading", name="Welcome, annie").wait_for()
    assert nav_texts(page) == ["Datasets", "Annotate"]
    assert page.get_by_role("link", name="MASE").get_attribute("href") == "/"
    # the home page names both kinds of work and shows no training workers (nothing an annotator runs or pings)
    page.get_by_text("label tickets with their intents and rate the team's answers").wait_for()
    assert page.get_by_role("button", name="Ping a worker").count() == 0
    assert "Workers" not in page.locator("main").inner_text()

    response = page.goto(f"{base}/workflows/{workflow.pk}/")
    assert response.status == 404
    error = page.get_by_test_id("error-page")
    error.get_by_role("heading", name="Page not found").wait_for()
    body = page.locator("body").inner_text()
    assert "URLconf" not in body and "api/" not in body  # no listing of the site's URL patterns
    assert nav_texts(page) == ["Datasets", "Annotate"]  # the page keeps the site's navigation

    response = page.goto(f"{base}/workflows/")  # a section the role does not open
    assert response.status == 403
    error.get_by_role("heading", name="You do not have access to this page").wait_for()
    error.get_by_role("link", name="Go to the home page").click()
    page.wait_for_url(f"{base}/")
    page.get_by_role("heading", name="Welcome, annie").wait_for()


def test_a_run_page_the_user_may_not_see_answers_404_before_rendering(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    sign_in(page, base, "otto", Role.OPERATOR)
    elsewhere = Project.objects.create(name="Another team")
    run = Run.objects.create(
        project=elsewhere, name="not yours", spec={"agents": []}, state=Run.State.SUCCEEDED
    )
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))

    response = page.goto(f"{base}/runs/{run.pk}/")
    assert response.status == 404
    page.get_by_test_id("error-page").get_by_role("heading", name="Page not found").wait_for()
    page.wait_for_timeout(1500)  # a page that mounted the run view would open its socket by now
    assert sockets == []
    assert page.locator("#root").count() == 0
    assert nav_texts(page) == ["Workflows", "Runs", "Deployments", "Datasets", "Review", "API"]


def test_operator_reads_an_agents_prompt_in_the_read_only_designer(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    project = sign_in(page, base, "olga", Role.OPERATOR)
    spec = json.loads((TEMPLATES / "research_report.json").read_text())
    workflow = Workflow.objects.create(project=project, name="Reports", spec=spec)
    analyst = next(agent for agent in spec["agents"] if agent["id"] == "analyst")

    page.goto(f"{base}/workflows/{workflow.pk}/")
    page.get_by_text("read only").wait_for()
    page.get_by_text("Select an agent or an edge on the canvas to read its settings here.").wait_for()
    inspector_tab = page.get_by_role("tab", name="Inspector")
    page.get_by_role("tab", name="Advisor").click()
    page.get_by_test_id("agent-node-analyst").click()
    assert inspector_tab.get_attribute("aria-selected") == "true"  # the click brings the inspector forward

    inspector = page.get_by_test_id("agent-inspector")
    inspector.get_by_text("Your role can read this agent's settings but not change them").wait_for()
    prompt = inspector.get_by_test_id("agent-prompt")
    assert prompt.is_visible() and prompt.is_disabled()
    assert prompt.input_value() == analyst["prompt"]
    rank = inspector.get_by_label("Rank r")
    assert rank.is_visible() and rank.is_disabled()
    assert rank.input_value() == str(analyst["lora"]["r"])
    assert inspector.get_by_role("combobox", name="Role").input_value() == analyst["role"]
    # Nothing to press that would change the draft.
    assert inspector.get_by_role("button", name="Use the role's default prompt").count() == 0
    workflow.refresh_from_db()
    assert workflow.spec == spec


def test_favicon_answers_200(live_services, browser_page):
    page = browser_page
    base = live_services.base_url
    sign_in(page, base, "fay", Role.PRODUCT_MANAGER)
    page.goto(f"{base}/")
    icons = page.locator("link[rel=icon]")
    hrefs = [icons.nth(i).get_attribute("href") for i in range(icons.count())]
    assert hrefs == ["/static/favicon.ico", "/static/favicon.svg"]
    for path in ["/favicon.ico", *hrefs]:
        response = page.request.get(f"{base}{path}")
        assert response.status == 200, path
        assert response.headers["content-type"] in ("image/x-icon", "image/vnd.microsoft.icon", "image/svg+xml")
        assert len(response.body()) > 100
