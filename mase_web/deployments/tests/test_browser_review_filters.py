"""In real Chromium: an operator narrows the ticket review to one reply backend, then to one fault, and
the filter stays in the page's address across a reload."""

from __future__ import annotations

import re

import pytest

from mase_web.deployments.tests.conftest import make_deployment
from mase_web.deployments.tests.test_browser_deployments import sign_in
from mase_web.deployments.tests.test_review_reply_filters import NOWHERE, SPEC, episode

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_operator_filters_decisions_by_reply_backend_and_fault(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(30_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "/review/")
    deployment = make_deployment(project, NOWHERE, SPEC, name="shop front")
    episode(deployment, "clean", "template")
    episode(deployment, "refused", "local", reply_fault="refusal")
    slow = episode(deployment, "slow", "openai_compatible", step_faults=("timeout", ""))

    page.reload()
    count = page.get_by_test_id("episode-count")  # one row per ticket
    count.filter(has_text=re.compile(r"^3$")).wait_for()

    page.get_by_label("Reply backend").select_option("local")
    count.filter(has_text=re.compile(r"^1$")).wait_for()
    page.wait_for_url(re.compile(r"[?&]backend=local"))

    page.get_by_label("Reply backend").select_option("")
    page.get_by_label("Fault", exact=True).select_option("any")
    count.filter(has_text=re.compile(r"^2$")).wait_for()  # the refused reply, and the ticket with a timeout

    page.get_by_label("Fault", exact=True).select_option("timeout")
    count.filter(has_text=re.compile(r"^1$")).wait_for()
    page.wait_for_url(re.compile(r"\?fault=timeout$"))
    rows = page.get_by_test_id("episodes").locator("tbody tr")
    assert rows.count() == 1 and "slow" in rows.first.inner_text()
    rows.first.get_by_role("button", name=re.compile(r"^Decisions")).click()  # the timed-out decision says so
    steps = page.get_by_test_id(f"episode-steps-{slow.pk}")
    steps.get_by_text("timeout").wait_for()

    page.reload()  # the filter is kept in the address
    count.filter(has_text=re.compile(r"^1$")).wait_for()
    assert page.get_by_label("Fault", exact=True).input_value() == "timeout"
    assert page.get_by_label("Reply backend").input_value() == ""
