"""In real Chromium: a project admin adds a user to the project, changes their role, removes them, and is
told why they cannot demote themselves while they are the last admin."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from mase_web.accounts.models import Membership, Role
from mase_web.runs.tests.test_browser_runs import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_an_admin_invites_changes_the_role_of_and_removes_a_member(live_services, browser_page):
    page = browser_page
    page.set_default_timeout(15_000)
    base = live_services.base_url
    _, project = sign_in(page, base, "ada", role=Role.ADMIN, next_path="/")
    get_user_model().objects.create_user("bea", email="bea@example.org")

    page.get_by_test_id("site-nav").get_by_role("link", name="Members").click()
    page.wait_for_url(f"{base}/members/")
    page.get_by_test_id("member-ada").wait_for()

    form = page.get_by_role("form", name="Add a member")
    form.get_by_label("Username or email").fill("nobody@example.org")
    form.get_by_role("button", name="Add member").click()
    form.get_by_role("alert").filter(
        has_text="they need an account before they can join (a site administrator creates one under Admin → Users)"
    ).wait_for()

    form.get_by_label("Username or email").fill("BEA@example.org")
    form.get_by_label("Role").select_option("operator")
    form.get_by_role("button", name="Add member").click()
    row = page.get_by_test_id("member-bea")
    row.wait_for()
    assert row.get_by_label("Role of bea").input_value() == "operator"
    assert Membership.objects.get(project=project, user__username="bea").role == Role.OPERATOR

    row.get_by_label("Role of bea").select_option("product_manager")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=member-bea] select')?.disabled === false"
    )
    assert Membership.objects.get(project=project, user__username="bea").role == Role.PRODUCT_MANAGER

    # The last admin cannot step down: the server says why, and the choice returns to the saved role.
    page.get_by_test_id("member-ada").get_by_label("Role of ada").select_option("operator")
    page.get_by_test_id("member-ada").get_by_role("alert").filter(has_text="last admin").wait_for()
    assert page.get_by_test_id("member-ada").get_by_label("Role of ada").input_value() == "admin"
    assert Membership.objects.get(project=project, user__username="ada").role == Role.ADMIN

    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Remove").click()
    row.wait_for(state="detached")
    assert not Membership.objects.filter(project=project, user__username="bea").exists()
