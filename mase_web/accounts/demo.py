"""Demo account and data for `make run` (`manage.py serve --demo`): idempotent, safe to call on every start,
refused in production."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from mase_web.accounts.models import Membership, Project, Role

DEMO_USERNAME = "admin"
DEMO_PASSWORD = "mase-demo"  # printed at start; development only


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    created: bool


class DemoRefused(RuntimeError):
    pass


@transaction.atomic
def ensure_demo_data() -> DemoAccount:
    """The demo superuser (made once, with DEMO_PASSWORD) and its project; never in production."""
    if settings.PRODUCTION:
        raise DemoRefused(
            f"no demo account in production: a superuser named {DEMO_USERNAME!r} is public knowledge"
        )
    User = get_user_model()
    user, created = User.objects.get_or_create(
        username=DEMO_USERNAME, defaults={"is_staff": True, "is_superuser": True}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
    project, _ = Project.objects.get_or_create(
        name="Demo project", defaults={"description": "Example teams from the MASE template gallery."}
    )
    Membership.objects.get_or_create(project=project, user=user, defaults={"role": Role.ADMIN})
    return DemoAccount(DEMO_USERNAME, DEMO_PASSWORD, created)
