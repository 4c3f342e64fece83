"""Failed sign-ins are throttled per account from one address, per address and per account, in Redis, on
every sign-in door; a guesser elsewhere never locks the account's owner out."""

from __future__ import annotations

import itertools
import json
import os
import time
import uuid

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, RequestFactory, override_settings

from mase_web.accounts.signin import client_address
from mase_web.core.tests.helpers import run_python

pytestmark = pytest.mark.django_db

PASSWORD = "right-horse-battery-77"
_addresses = itertools.count(1)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # A PBKDF2 check takes ~1 s on a busy machine, longer than the short windows these tests wait out.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def new_address() -> str:
    # Counts live in the session's Redis and outlive each test's database rollback: never share one.
    return f"198.51.{os.getpid() % 250}.{next(_addresses) % 250}"


def new_user(prefix: str = "signin"):
    return get_user_model().objects.create_user(f"{prefix}-{uuid.uuid4().hex[:10]}", password=PASSWORD)


def login_page(username: str, password: str, address: str):
    return Client(REMOTE_ADDR=address).post("/login/", {"username": username, "password": password})


def token_api(username: str, password: str, address: str):
    return Client(REMOTE_ADDR=address).post(
        "/api/token/", {"username": username, "password": password}, content_type="application/json"
    )


@override_settings(
    SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS=3, SIGNIN_FAILURES_PER_ADDRESS=100, SIGNIN_THROTTLE_WINDOW=600
)
def test_login_page_refuses_the_fourth_wrong_password_with_429():
    user, address = new_user(), new_address()
    for _ in range(3):
        response = login_page(user.username, "wrong", address)
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.content.decode()
    response = login_page(user.username, "wrong", address)
    assert response.status_code == 429
    assert 590 <= int(response["Retry-After"]) <= 600
    page = response.content.decode()
    assert "Too many failed sign-in attempts. Try again in 10 minutes." in page
    assert 'role="alert"' in page  # shown in the form's error slot
    # The right password is not even checked for the account from the throttled address ...
    assert login_page(user.username, PASSWORD, address).status_code == 429
    # ... while its owner, elsewhere, signs in as usual.
    response = login_page(user.username, PASSWORD, new_address())
    assert response.status_code == 302 and response["Location"] == "/"
    # Another account from another address signs in as usual.
    other = new_user()
    response = login_page(other.username, PASSWORD, new_address())
    assert response.status_code == 302 and response["Location"] == "/"


@override_settings(
    SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS=3, SIGNIN_FAILURES_PER_ADDRESS=100, SIGNIN_THROTTLE_WINDOW=600
)
def test_token_api_refuses_the_fourth_wrong_password_with_429_json():
    user, address = new_user(), new_address()
    for _ in range(3):
        response = token_api(user.username, "wrong", address)
        assert response.status_code == 400
        assert response.json()["errors"]["non_field_errors"]
    response = token_api(user.username, "wrong", address)
    assert response.status_code == 429
    assert 590 <= int(response["Retry-After"]) <= 600
    assert response.json() == {
        "detail": "Too many failed sign-in attempts. Try again in 10 minutes.",
        "errors": {},
    }
    assert token_api(user.username.upper(), PASSWORD, address).status_code == 429  # same account
    assert token_api(user.username, PASSWORD, new_address()).status_code == 200
    other = new_user()
    response = token_api(other.username, PASSWORD, new_address())
    assert response.status_code == 200 and response.json()["token"]


@override_settings(
    SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS=100, SIGNIN_FAILURES_PER_ADDRESS=4, SIGNIN_THROTTLE_WINDOW=600
)
def test_one_address_trying_many_accounts_is_throttled():
    address = new_address()
    for index in range(4):
        door = token_api if index % 2 else login_page  # both doors share the address's count
        assert door(f"nobody-{uuid.uuid4().hex}", "guess", address).status_code in {200, 400}
    victim = new_user()
    assert login_page(victim.username, PASSWORD, address).status_code == 429
    assert token_api(victim.username, PASSWORD, address).status_code == 429
    assert token_api(victim.username, PASSWORD, new_address()).status_code == 200


@override_settings(
    SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS=3, SIGNIN_FAILURES_PER_ADDRESS=100, SIGNIN_THROTTLE_WINDOW=600
)
def test_a_successful_sign_in_clears_the_account_failures():
    user, address = new_user(), new_address()
    for _ in range(2):
        assert token_api(user.username, "wrong", address).status_code == 400
    assert token_api(user.username, PASSWORD, address).status_code == 200
    for _ in range(3):
        assert token_api(user.username, "wrong", address).status_code == 400
    assert token_api(user.username, "wrong", address).status_code == 429


@override_settings(
    SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS=2, SIGNIN_FAILURES_PER_ADDRESS=100, SIGNIN_THROTTLE_WINDOW=3
)
def test_the_block_ends_with_the_window():
    user, address = new_user(), new_address()
    for _ in range(2):
        assert login_page(user.username, "wrong", address).status_code == 200
    blocked = login_page(user.username, PASSWORD, address)
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) <= 3
    assert "Try again in" in blocked.content.decode() and "second" in blocked.content.decode()
    time.sleep(4)
    response = login_page(user.username, PASSWORD, address)
    assert response.status_code == 302


@override_settings(SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS=2)
def test_missing_fields_are_reported_not_counted():
    user, address = new_user(), new_address()
    for _ in range(4):
        response = token_api(user.username, "", address)
        assert response.status_code == 400 and "password" in response.json()["errors"]
    assert token_api(user.username, PASSWORD, address).status_code == 200


@override_settings(
    SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS=2, SIGNIN_FAILURES_PER_ADDRESS=100, SIGNIN_THROTTLE_WINDOW=600
)
def test_admin_sign_in_shares_the_throttle():
    user, address = new_user(), new_address()
    for _ in range(2):
        assert token_api(user.username, "wrong", address).status_code == 400
    response = Client(REMOTE_ADDR=address).post(
        "/admin/login/", {"username": user.username, "password": PASSWORD}
    )
    assert "Too many failed sign-in attempts" in response.content.decode()


@override_settings(
    SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS=3, SIGNIN_FAILURES_PER_ADDRESS=100, SIGNIN_THROTTLE_WINDOW=600
)
def test_another_process_sees_the_same_count(settings):
    """A second web process (here: a fresh interpreter on the same Redis) refuses the same account."""
    user, address = new_user(), new_address()
    for _ in range(3):
        assert token_api(user.username, "wrong", address).status_code == 400
    code = f"""
import django, json, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mase_web.settings")
django.setup()
from django.test import RequestFactory
from mase_web.accounts.signin import begin_attempt
print(json.dumps(begin_attempt(RequestFactory().post("/login/", REMOTE_ADDR={address!r}), {user.username!r})))
"""
    env = dict(
        os.environ,
        REDIS_URL=settings.REDIS.url,
        SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS="3",
        SIGNIN_FAILURES_PER_ADDRESS="100",
        SIGNIN_THROTTLE_WINDOW="600",
    )
    result = run_python(code, env)
    assert result.returncode == 0, result.stderr
    assert 590 <= json.loads(result.stdout.strip().splitlines()[-1]) <= 600


def test_a_guesser_elsewhere_does_not_lock_the_owner_out(settings):
    """At the shipped limits: twelve wrong passwords from one address, then the owner from another."""
    assert settings.SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS == 10
    user, attacker, owner = new_user(), new_address(), new_address()
    answers = [token_api(user.username, f"guess-{n}", attacker).status_code for n in range(12)]
    assert answers == [400] * 10 + [429] * 2
    assert login_page(user.username, PASSWORD, attacker).status_code == 429  # even the right one, from there
    response = login_page(user.username, PASSWORD, owner)
    assert response.status_code == 302 and response["Location"] == "/"
    assert token_api(user.username, PASSWORD, owner).status_code == 200
    # Signing in cleared the owner's count only: the guesser's address stays refused.
    assert token_api(user.username, "guess-12", attacker).status_code == 429


@override_settings(
    SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS=100,
    SIGNIN_FAILURES_PER_ADDRESS=100,
    SIGNIN_FAILURES_PER_ACCOUNT=5,
    SIGNIN_THROTTLE_WINDOW=600,
)
def test_a_guess_spread_over_many_addresses_meets_the_account_limit():
    user = new_user()
    for _ in range(5):
        assert token_api(user.username, "guess", new_address()).status_code == 400
    assert token_api(user.username, PASSWORD, new_address()).status_code == 429
    # Another account is untouched.
    assert token_api(new_user().username, PASSWORD, new_address()).status_code == 200


@override_settings(TRUSTED_PROXIES=1)
def test_behind_a_proxy_the_address_is_the_one_the_proxy_saw():
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 203.0.113.9")
    assert client_address(request) == "203.0.113.9"  # the forged left entry is ignored
    with override_settings(TRUSTED_PROXIES=0):
        assert client_address(request) == "10.0.0.2"
