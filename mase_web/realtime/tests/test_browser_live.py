"""In real Chromium: sign in, see the live socket open, ping a worker, see its notification arrive."""

import pytest
from django.contrib.auth import get_user_model

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_login_and_live_notification_from_worker(live_services, browser_page):
    get_user_model().objects.create_user("alice", password="a-long-password-1")
    page = browser_page
    page.goto(f"{live_services.base_url}/")
    assert "/login/" in page.url  # anonymous users are sent to sign in
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill("wrong password")
    page.get_by_role("button", name="Sign in").click()
    assert page.get_by_role("alert").is_visible()

    page.get_by_label("Password").fill("a-long-password-1")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Welcome, alice").wait_for()
    page.get_by_test_id("socket-status").filter(has_text="open").wait_for(timeout=15000)

    page.get_by_role("button", name="Ping a worker").click()
    page.get_by_test_id("feed").get_by_text("hello from the browser").wait_for(timeout=60000)
