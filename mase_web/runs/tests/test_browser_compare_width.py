"""In real Chromium at 1440 px: the compare page of runs of different teams with many final metrics fits
the window (no sideways page scroll); its wide tables scroll inside their own boxes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ARTIFACTS
from mase_web.runs.models import Run
from mase_web.runs.tests.test_browser_runs import Feed, sign_in, wait_points

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
TEMPLATES = ["customer_service", "research_report", "collaborative_writing", "code_generation"]
# Final metrics as a long evaluation reports them: many columns in the summary table.
METRICS = [f"held_out_{name}_rate" for name in ("success", "escalation", "refund", "handoff", "timeout")] + [
    f"agent_{i}_message_entropy_bits" for i in range(10)
]


def test_the_compare_page_fits_1440_pixels(live_services, browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    base = live_services.base_url
    try:
        _, project = sign_in(page, base, "wide_comparer")
        runs = []
        for index, slug in enumerate(TEMPLATES):
            spec = json.loads((EXAMPLES / f"{slug}.json").read_text())
            metrics = {key: 0.123456 * (i + index) for i, key in enumerate(METRICS)}
            run = Run.objects.create(
                project=project, name=f"{slug} with a rather long run name", spec=spec,
                state=Run.State.SUCCEEDED, metrics=metrics,
            )  # fmt: skip
            feed = Feed(run)
            for step in range(3):
                feed.emit("metrics", step=step, episode=100 * (step + 1), success=0.2 * step + 0.1 * index)
            feed.flush()
            runs.append(run)

        page.goto(f"{base}/runs/compare/?ids={','.join(str(r.pk) for r in runs)}")
        wait_points(page, "compare-chart", 12)
        page.get_by_test_id("config-diff").wait_for()
        page.get_by_role("button", name="Show all").click()
        widths = page.evaluate(
            "() => ({page: document.documentElement.scrollWidth,"
            " summary: document.querySelector('[data-testid=compare-summary]').scrollWidth,"
            " box: document.querySelector('[data-testid=compare-summary]').parentElement.clientWidth})"
        )
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "compare_page_1440.png"), full_page=True)
        assert widths["page"] <= 1440, widths
        # The summary is wider than its box and scrolls inside it instead of widening the page.
        assert widths["summary"] > widths["box"], widths
        overflow = page.evaluate(
            "() => getComputedStyle(document.querySelector('[data-testid=compare-summary]').parentElement).overflowX"
        )
        assert overflow == "auto"
    finally:
        context.close()
