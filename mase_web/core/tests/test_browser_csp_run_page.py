"""In real Chromium, under the Content-Security-Policy the server sends: a run page with every panel drawn
(curves, the attention heat map and replay, the communication network, phases, plateaus, checkpoints,
alerts, system load, protocol figures) logs no policy violation and no CSP console error."""

from __future__ import annotations

import pytest

from mase_web.runs.models import Run
from mase_web.runs.tests.test_browser_protocol import protocol_metrics
from mase_web.runs.tests.test_browser_runs import AGENTS, Feed, attention, make_run, sign_in, wait_points

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

# Violations as the page itself sees them, with what was blocked (the console message is a second witness).
VIOLATION_SPY = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__cspViolations.push(
    `${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}: ${e.sample}`));
"""


def feed_a_whole_run(run: Run) -> None:
    feed = Feed(run)
    feed.emit("started", resumed_from=None, algorithm="reinforce_comm", episodes=1000, agents=AGENTS)
    for i in range(5):  # protocol_metrics(5) would divide by zero
        phase = "exploration" if i < 3 else "exploitation"
        feed.emit(
            "metrics", step=i + 1, episode=100 * (i + 1), success=0.15 * i, reward=0.1 * i, phase=phase,
            **protocol_metrics(i),
        )  # fmt: skip
        feed.emit("attention", step=i + 1, agents=AGENTS, matrix=attention(0.15 * i), mode="train")
    feed.emit("phase", **{"from": "exploration", "to": "exploitation", "reason": "score passed 0.3"})
    feed.emit("plateau", cycles=3, recommendation="restructure the reward: no 2% gain in 3 cycles")
    feed.emit("checkpoint", step=5, path=f"/data/runs/{run.pk}/checkpoints/last_5", metrics={"success": 0.75})
    feed.emit("alert", level="warning", name="loss.spike", message="the loss jumped")
    feed.emit("metrics", system={"cpu_percent": 42.0, "memory_percent": 61.5, "process_rss_mb": 812.3})
    feed.emit("finished", status="succeeded", metrics={"success": 0.75, "episodes": 200})
    feed.flush()


def test_a_run_page_with_every_panel_logs_no_csp_error(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    console: list[str] = []
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: console.append(f"page error: {error}"))
    page.add_init_script(VIOLATION_SPY)
    _, project = sign_in(page, base, "csp_run_pm")
    run = make_run(project, "every panel", state=Run.State.SUCCEEDED)
    feed_a_whole_run(run)

    page.goto(f"{base}/runs/{run.pk}/")
    wait_points(page, "curve-success", 5)
    page.wait_for_timeout(3000)  # the panels below the curves draw after their data arrives
    page.mouse.wheel(0, 4000)
    page.wait_for_timeout(1500)
    # The heat map's cells are drawn sharp: Plotly's rendering test found the allowed style working.
    heatmap_image = "document.querySelector('[data-testid=attention-heatmap] image')"
    assert page.evaluate(f"getComputedStyle({heatmap_image}).imageRendering") == "pixelated"
    violations = page.evaluate("window.__cspViolations")
    csp_console = [line for line in console if "Content Security Policy" in line or "page error" in line]
    assert (violations, csp_console) == ([], [])
