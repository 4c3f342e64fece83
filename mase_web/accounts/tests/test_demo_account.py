"""The demo superuser exists only where asked for (`manage.py serve --demo`, what `make run` runs), and
never in production."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate, get_user_model

from mase_web.accounts.demo import DEMO_PASSWORD, DEMO_USERNAME, DemoRefused, ensure_demo_data
from mase_web.accounts.models import Membership

pytestmark = pytest.mark.django_db


def test_the_demo_account_is_made_once_as_a_project_admin():
    first, again = ensure_demo_data(), ensure_demo_data()
    assert (first.created, again.created) == (True, False)
    user = authenticate(username=DEMO_USERNAME, password=DEMO_PASSWORD)
    assert user is not None and user.is_superuser
    assert Membership.objects.get(user=user).role == "admin"


def test_the_demo_account_is_refused_in_production(settings):
    settings.PRODUCTION = True
    with pytest.raises(DemoRefused, match="no demo account in production"):
        ensure_demo_data()
    assert not get_user_model().objects.filter(username=DEMO_USERNAME).exists()
