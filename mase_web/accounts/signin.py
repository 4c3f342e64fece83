"""Sign-in with a throttle on failures, counted three ways:

- per account from one client address (the tight limit): a guesser is stopped, and since the count is
  theirs alone, the account's owner signing in from elsewhere is not locked out by them;
- per client address over all accounts: one address spraying passwords across many usernames;
- per account over all addresses (a much higher limit): a guess spread over many addresses.

Counts live in Django's cache, which is the project's Redis, so every web process shares them. An
attempt reserves one failure on every counter before the password is checked: concurrent guesses
cannot overshoot a limit, and an attempt refused by the throttle never reaches the password check.
A successful sign-in clears its account-and-address count and gives back its other reservations (the
others' failures stay counted: signing in does not wipe out a guesser's record).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from django.core.cache import cache
from django.core.exceptions import ValidationError
from rest_framework import exceptions, status
from rest_framework.authtoken.views import ObtainAuthToken


def client_address(request) -> str:
    """The client's IP address: the TCP peer, or what the outermost of TRUSTED_PROXIES proxies saw."""
    proxies = settings.TRUSTED_PROXIES
    if proxies:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        forwarded = [part for part in forwarded if part]
        # Each trusted proxy appends the peer it saw; entries further left are the client's to forge.
        if len(forwarded) >= proxies:
            return forwarded[-proxies]
    return request.META.get("REMOTE_ADDR", "")


def _counters(request, username: str) -> list[tuple[str, int]]:
    """(cache key, limit) of the account-and-address, address and account counts, in that order."""

    def key(kind: str, *values: str) -> str:
        # NUL cannot occur in a username or an address, so the pair's parts cannot run together.
        return f"signin:{kind}:{hashlib.sha256(chr(0).join(values).encode()).hexdigest()}"

    # Usernames differing only in case name the same account for a guesser's purposes.
    account, address = username.casefold(), client_address(request)
    return [
        (key("account-address", account, address), settings.SIGNIN_FAILURES_PER_ACCOUNT_AND_ADDRESS),
        (key("address", address), settings.SIGNIN_FAILURES_PER_ADDRESS),
        (key("account", account), settings.SIGNIN_FAILURES_PER_ACCOUNT),
    ]


def _increment(key: str, window: int) -> int:
    # The first failure of a window stamps its start (for Retry-After); the count expires with it.
    cache.add(f"{key}:start", time.time(), timeout=window)
    cache.add(key, 0, timeout=window)
    try:
        return cache.incr(key)  # atomic in Redis, and keeps the key's expiry
    except ValueError:  # the window ended between add and incr: this failure opens the next one
        cache.set(key, 1, timeout=window)
        return 1


def _decrement(key: str) -> None:
    with contextlib.suppress(ValueError):  # the window already ended
        cache.decr(key)


def begin_attempt(request, username: str) -> int:
    """Reserve one failed attempt for `username` from this client; return 0 if the password may be
    checked, else the seconds until it may (the reservation is then given back)."""
    window = settings.SIGNIN_THROTTLE_WINDOW
    counters = _counters(request, username)
    counts = [(key, limit, _increment(key, window)) for key, limit in counters]
    over = [key for key, limit, count in counts if count > limit]
    if not over:
        return 0
    for key, _limit, _count in counts:
        _decrement(key)
    starts = cache.get_many([f"{key}:start" for key in over])
    now = time.time()
    waits = [starts.get(f"{key}:start", now) + window - now for key in over]
    return max(1, math.ceil(max(waits)))


def attempt_succeeded(request, username: str) -> None:
    """The password was right: forget this account's failures from this address, and give back this
    attempt's reservations on the address's and the account's counts."""
    (pair_key, _), (address_key, _), (account_key, _) = _counters(request, username)
    cache.delete_many([pair_key, f"{pair_key}:start"])
    _decrement(address_key)
    _decrement(account_key)


def too_many_attempts_message(wait: int) -> str:
    """'Too many failed sign-in attempts. Try again in N minutes.' for a wait in seconds."""
    if wait >= 60:
        minutes = math.ceil(wait / 60)
        when = f"{minutes} minute{'s' if minutes != 1 else ''}"
    else:
        when = f"{wait} second{'s' if wait != 1 else ''}"
    return f"Too many failed sign-in attempts. Try again in {when}."


class ThrottledFormMixin:
    """For Django's authentication forms: refuse throttled attempts before the password is checked."""

    retry_after = 0

    def clean(self):
        username = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if username is None or not password:
            return super().clean()  # a missing field is reported without checking anything
        self.retry_after = begin_attempt(self.request, username)
        if self.retry_after:
            raise ValidationError(too_many_attempts_message(self.retry_after), code="throttled")
        cleaned = super().clean()
        attempt_succeeded(self.request, username)
        return cleaned


class ThrottledAuthenticationForm(ThrottledFormMixin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(ThrottledFormMixin, AdminAuthenticationForm):
    pass


class SignInView(LoginView):
    """The login page; a throttled attempt gets status 429 and a form error saying when to retry."""

    template_name = "login.html"
    authentication_form = ThrottledAuthenticationForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.retry_after:
            response.status_code = status.HTTP_429_TOO_MANY_REQUESTS
            response["Retry-After"] = str(form.retry_after)
        return response


class SignInThrottled(exceptions.APIException):
    """429 in the API's error shape; DRF's handler turns `wait` into a Retry-After header."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "throttled"

    def __init__(self, wait: int):
        self.wait = wait
        super().__init__(too_many_attempts_message(wait))


class ThrottledObtainAuthToken(ObtainAuthToken):
    """POST username and password for an API token, with the sign-in throttle."""

    def post(self, request, *args, **kwargs):
        data = request.data if hasattr(request.data, "get") else {}
        username, password = data.get("username"), data.get("password")
        if not (isinstance(username, str) and username and password):
            return super().post(request, *args, **kwargs)  # the serializer reports what is missing
        wait = begin_attempt(request, username)
        if wait:
            raise SignInThrottled(wait)
        response = super().post(request, *args, **kwargs)  # raises a 400 for wrong credentials
        attempt_succeeded(request, username)
        return response


obtain_auth_token = ThrottledObtainAuthToken.as_view()
