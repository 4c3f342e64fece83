"""In real Chromium, under the Content-Security-Policy the server sends: the React pages (with Plotly
charts, the designer and the live WebSocket) and the API docs render with no policy violation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mase_web.runs.tests.test_browser_runs import AGENTS, Feed, make_run, sign_in, wait_points
from mase_web.workflows.models import Workflow

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

TEMPLATES = Path(__file__).resolve().parents[3] / "examples"
# Violations as the page itself sees them (the console message is a second witness).
VIOLATION_SPY = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__cspViolations.push(
    `${location.pathname}: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));
"""


def test_pages_render_under_the_policy_without_violations(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.on("pageerror", lambda error: console.append(f"page error: {error}"))
    page.add_init_script(VIOLATION_SPY)
    seen: list[str] = []

    def violations() -> list[str]:
        return page.evaluate("window.__cspViolations")

    _, project = sign_in(page, base, "csp_pm")  # the login page, then /runs/
    page.get_by_text("No runs yet").wait_for()
    seen += violations()

    run = make_run(project, "csp team")
    feed = Feed(run)
    feed.emit("started", resumed_from=None, algorithm="reinforce_comm", episodes=1000, agents=AGENTS)
    for i in range(3):
        feed.emit("metrics", step=i + 1, episode=100 * (i + 1), success=0.3 * i)
    feed.flush()
    page.goto(f"{base}/runs/{run.pk}/")
    wait_points(page, "curve-success", 3)  # Plotly drew the curve
    # ...and its own style rules went into the nonce-carrying sheet the page provides.
    assert page.evaluate("document.getElementById('plotly.js-style-global').sheet.cssRules.length") > 10
    feed.emit("metrics", step=4, episode=400, success=0.95)
    feed.flush()
    wait_points(page, "curve-success", 4)  # ...and the WebSocket delivered a live point
    seen += violations()

    spec = json.loads((TEMPLATES / "collaborative_writing.json").read_text())
    workflow = Workflow.objects.create(project=project, name="csp workflow", spec=spec)
    page.goto(f"{base}/workflows/{workflow.pk}/")
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()
    page.locator(".react-flow__node").first.wait_for()
    seen += violations()

    page.goto(f"{base}/api/docs/")
    page.locator(".swagger-ui .info .title").wait_for()
    page.locator(".opblock").first.wait_for()  # the schema was fetched and drawn
    seen += violations()

    assert seen == []
    assert [line for line in console if "Content Security Policy" in line or "page error" in line] == []
