"""In real Chromium, the path a newcomer takes: gallery → publish → launch → watch, with the
number-guessing template's defaults untouched. The run must learn what the benchmarks say it learns,
and the page must draw it: success ≥ 0.99, and the guesser's attention on the distractors ≤ 0.05,
going from a uniform graph at the first report to a sparse one at the last."""

from __future__ import annotations

import re
import time

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from mase_web.accounts.models import Membership, Project, Role
from mase_web.runs.models import Run

# default_stack: CI runs this one on the embedded default as well, the zero-install path `make run` starts
pytestmark = [
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.default_stack,
    pytest.mark.django_db(transaction=True),
]

PASSWORD = "a-long-password-1"
TEMPLATE_NAME = "Number guessing"
EDGE_TITLE = re.compile(r"^(\w+) → (\w+): ([0-9.]+)$")


def sign_in_through_the_login_page(page, base_url: str) -> Project:
    user = get_user_model().objects.create_user("newcomer", password=PASSWORD)
    project = Project.objects.create(name="First steps")
    Membership.objects.create(project=project, user=user, role=Role.PRODUCT_MANAGER)
    page.goto(f"{base_url}/workflows/")
    page.get_by_label("Username").fill("newcomer")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(re.compile(r"/workflows/$"))
    return project


def guesser_row(page) -> dict[str, float]:
    """The guesser's incoming weights as the communication network draws them (edge titles)."""
    row = {}
    for title in page.get_by_test_id("communication-network").locator("path.edge title").all_text_contents():
        match = EDGE_TITLE.match(title.strip())
        if match and match.group(2) == "guesser":
            row[match.group(1)] = float(match.group(3))
    return row


def test_a_newcomer_launches_the_gallery_template_and_watches_it_learn(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(20_000)
    base = live_services.base_url
    started = time.monotonic()
    project = sign_in_through_the_login_page(page, base)

    # Gallery → designer: the template opens valid, as shipped.
    page.get_by_role("button", name=f"Use {TEMPLATE_NAME}", exact=True).click()
    page.wait_for_url(re.compile(r"/workflows/\d+/$"))
    page.get_by_test_id("error-count").filter(has_text="valid").wait_for()

    # Publish version 1, untouched (a note is required).
    page.get_by_role("tab", name="History").click()
    page.get_by_test_id("publish-note").fill("As shipped")
    page.get_by_role("button", name="Publish version").click()
    page.get_by_text("Published version 1.").wait_for()

    # Runs page: launch the published version with nothing changed.
    page.goto(f"{base}/runs/")
    form = page.get_by_role("form", name="Launch a run")
    form.get_by_text("Published workflow").click()
    form.get_by_label("Workflow", exact=True).select_option(label=TEMPLATE_NAME)
    form.get_by_label("Version", exact=True).select_option("1")
    expect(form.get_by_label("Run name")).to_have_value(TEMPLATE_NAME)
    form.get_by_role("button", name="Launch run").click()
    page.wait_for_url(re.compile(r"/runs/\d+/$"))
    run = Run.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert run.project_id == project.pk
    assert run.source.get("kind") == "workflow" and run.source.get("version") == 1

    # Watch: it succeeds, and the final success drawn on the page is ≥ 0.99.
    page.get_by_test_id("run-state").filter(has_text="succeeded").wait_for(timeout=240_000)
    print(f"gallery → succeeded run: {time.monotonic() - started:.0f} s")
    final = page.locator(".final-metrics .metric-chip").filter(has=page.locator("text=/^success\\b/"))
    final.first.wait_for()
    success = float(re.search(r"([0-9.]+)\s*$", final.first.inner_text()).group(1))
    assert success >= 0.99, f"the shipped template ended at success {success}"

    # The graph as drawn, every edge shown: sparse at the end ...
    communication = page.get_by_test_id("communication")
    communication.get_by_label("Hide edges below").fill("0")
    communication.locator("select").first.select_option("eval")
    page.get_by_test_id("communication-network").wait_for()
    last = guesser_row(page)
    # (the server leaves out edges of weight 0: a missing distractor edge is one the guesser ignores)
    assert {"clue_0", "clue_1", "clue_2", "clue_3"} <= set(last), last
    assert last.get("distractor_0", 0.0) + last.get("distractor_1", 0.0) <= 0.05, last
    # ... and uniform at the first report, reached with the replay slider.
    slider = communication.get_by_label("Replay attention over time")
    slider.fill("0")
    page.get_by_test_id("attention-frame").filter(has_text=re.compile(r"^1 / ")).wait_for()
    first = guesser_row(page)
    spread = max(first.values()) - min(first.values())
    assert len(first) == 6 and spread < 0.05, f"the first report should be near uniform: {first}"
