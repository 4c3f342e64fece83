"""In real Chromium: an operator scrolled down the review list who opens a decision's trajectory is taken to
it. It opens above the list, and the browser kept the list where it was, so nothing seemed to happen."""

from __future__ import annotations

import re

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments.tests.test_browser_operate import deployment_with_an_episode, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_opening_a_trajectory_below_the_fold_brings_it_into_view(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(20_000)
    page.set_viewport_size({"width": 1200, "height": 420})  # the steps' buttons sit below the first screen
    base = live_services.base_url
    _, project = signed_in(page, base, Role.OPERATOR)
    _, episode = deployment_with_an_episode(project)

    page.goto(f"{base}/review/")
    page.get_by_test_id(f"episode-{episode.pk}").get_by_role("button", name=re.compile(r"^Decisions")).click()
    button = page.get_by_test_id("decisions").get_by_role("button", name="Trajectory").first
    button.scroll_into_view_if_needed()
    assert page.evaluate("window.scrollY") > 0
    button.click()
    trajectory = page.get_by_test_id("trajectory")
    trajectory.get_by_role("button", name="Close").wait_for()
    page.wait_for_timeout(500)  # any scrolling settles
    top = trajectory.evaluate("(el) => el.getBoundingClientRect().top")
    assert 0 <= top < 420, f"the trajectory opened at {top} px, outside the window"
