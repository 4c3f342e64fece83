"""In real Chromium: the designer's Environment tab fits its side panel (the intent catalogue's rows and the
tickets field were wider than the panel, so descriptions and the dataset picker were cut at its edge)."""

from __future__ import annotations

import pytest

from conftest import ARTIFACTS
from mase_web.workflows.tests.test_browser_designer import open_template

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

# The Environment tab's elements whose right edge passes the tab's own, as "tag.class: text".
PAST_THE_EDGE = """() => {
  const editor = document.querySelector('.environment-editor');
  const edge = editor.getBoundingClientRect().right + 1;
  return [...editor.querySelectorAll('*')].filter((e) => e.getBoundingClientRect().right > edge)
    .map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${(e.textContent || e.getAttribute('aria-label') || '').slice(0, 40)}`);
}"""


def test_the_environment_tab_fits_its_panel(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    open_template(page, live_services.base_url, "customer_service", "Bike desk")
    page.get_by_role("tab", name="Environment").click()
    page.get_by_label("Intent 1 name").wait_for()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "environment_tab.png"))
    assert page.evaluate(PAST_THE_EDGE) == []
