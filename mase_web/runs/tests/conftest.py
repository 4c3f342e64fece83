"""Fixtures of the runs tests: users in roles, a quick number-guessing spec, and helpers to wait."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from mase_web.accounts.models import Membership, Project, Role
from mase_web.runs.models import Run, RunEvent

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "number_guessing.json"


def quick_spec(episodes: int = 256, checkpoint_every: int = 0, **training) -> dict:
    """The shipped number-guessing team with a training budget small enough for a test."""
    spec = json.loads(EXAMPLE.read_text())
    spec["training"].update(
        episodes=episodes,
        batch_size=32,
        eval_every=0,
        eval_episodes=64,
        checkpoint_every=checkpoint_every,
        **training,
    )
    return spec


@pytest.fixture
def team(db):
    """A project with one user per role, and a stranger from another project."""
    User = get_user_model()
    project, elsewhere = Project.objects.create(name="team"), Project.objects.create(name="elsewhere")
    users = {}
    for role in Role.values:
        users[role] = User.objects.create_user(f"{role}-user", password="pw-for-tests-123")
        Membership.objects.create(project=project, user=users[role], role=role)
    users["stranger"] = User.objects.create_user("stranger", password="pw-for-tests-123")
    Membership.objects.create(project=elsewhere, user=users["stranger"], role=Role.PRODUCT_MANAGER)
    return project, users


@pytest.fixture
def gpu_queue():
    """The broker's channel, with the `gpu` queue emptied before and after: no worker consumes it outside
    the tests that start one, so a run queued there stays queued, and no delivery leaks into other tests."""
    from mase_web.celery import app

    with app.connection_for_write() as conn:
        conn.default_channel.queue_purge("gpu")
        yield conn.default_channel
        conn.default_channel.qos.restore_unacked()
        conn.default_channel.queue_purge("gpu")


def client_for(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def wait_for_state(run_id: int, states: set[str], timeout: float = 180.0) -> Run:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.state in states:
            return run
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} still {Run.objects.get(pk=run_id).state}, expected {states}")


def wait_for_event(run_id: int, type: str, timeout: float = 180.0) -> RunEvent:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = RunEvent.objects.filter(run_id=run_id, type=type).order_by("seq").first()
        if event:
            return event
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} emitted no {type!r} event in {timeout}s")


def assert_continuous(run_id: int) -> list[int]:
    seqs = list(RunEvent.objects.filter(run_id=run_id).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1)), f"gaps or duplicates in {seqs}"
    return seqs
