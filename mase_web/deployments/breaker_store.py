"""The deployment row is the authoritative circuit breaker: restore before a decision, save after.

Every process (daphne, Celery workers) keeps its own `serving.breaker.CircuitBreaker` objects. A change
made at once (an operator's force) happens inside `locked_deployment`: a transaction holding the
deployment's row lock, the breaker restored from the row first and saved back (with its transitions and
alerts as rows) at the end. A group of tickets plays for longer than a lock should be held: it starts
from the row as read (`playing_breaker`) and, under the lock, `save_played` stores its breaker if the row
is still as read, else the row's new state with what the group reported replayed onto it, so processes
play one deployment's tickets at the same time and every transition is stored once. An operator's force
therefore applies to the next group in every worker, and stands over the groups playing meanwhile.

The row's state as a breaker, and the dashboard's snapshot of it, are `breaker_state`'s: serializers
read them without depending on the writes and the live events made here.
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from mase_web.deployments import live
from mase_web.deployments.breaker_state import restored_breaker
from mase_web.deployments.models import Alert, BreakerTransition, Deployment
from serving.breaker import CircuitBreaker

_process_locks: dict[int, threading.Lock] = {}
_process_locks_guard = threading.Lock()


def _process_lock(deployment_id: int) -> threading.Lock:
    """Threads of one process take turns too (SQLite ignores row locks)."""
    with _process_locks_guard:
        return _process_locks.setdefault(deployment_id, threading.Lock())


@contextmanager
def _sqlite_turn(deployment_id: int) -> Iterator[None]:
    """Under SQLite, processes take turns on a deployment through a file lock first: SQLite has no row
    locks, and a process waiting for its write lock polls for it (sleeps of up to 100 ms), where a waiter
    on a file lock wakes the moment it is free. Nothing to do under PostgreSQL (the row lock queues)."""
    if connection.vendor != "sqlite":
        yield
        return
    locks = Path(settings.DATA_DIR) / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    with open(locks / f"deployment-{deployment_id}.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def group_turn(deployment_id: int) -> Iterator[None]:
    """A transaction in which the deployment's row may be locked without waiting on this process's other
    threads: SQLite's turn (the file lock) first. For the short writes of a group that plays unlocked."""
    with _sqlite_turn(deployment_id), transaction.atomic():
        yield


@contextmanager
def locked_deployment(deployment_id: int, defer: tuple[str, ...] = ()) -> Iterator[Deployment]:
    """The deployment row, locked until the block ends (one decision-maker per deployment at a time);
    ``defer``: columns left unread (loaded if touched)."""
    with _process_lock(deployment_id), _sqlite_turn(deployment_id), transaction.atomic():
        yield Deployment.objects.select_for_update().defer(*defer).get(pk=deployment_id)


def playing_breaker(deployment: Deployment, breaker: CircuitBreaker) -> dict[str, Any]:
    """``breaker`` restored from the row (read, not locked) and noting what the team reports from now on;
    returns the row's state as read, for `save_played`."""
    seen = dict(deployment.breaker or {})
    restored_breaker(deployment, breaker)
    breaker.journal = []
    return seen


def save_played(deployment: Deployment, breaker: CircuitBreaker, seen: dict[str, Any]) -> None:
    """Save a breaker that played from the row state ``seen`` (`playing_breaker`) to the locked row. If
    another process or an operator saved in between, the row's state wins and what this breaker was told
    is replayed onto it: its own transitions (decided from a state that no longer holds) are dropped."""
    journal, breaker.journal = breaker.journal or [], None
    if dict(deployment.breaker or {}) != seen:
        restored_breaker(deployment, breaker)
        breaker.replay(journal)
    save_breaker(deployment, breaker)


def save_breaker(
    deployment: Deployment, breaker: CircuitBreaker, actor=None, why: str = ""
) -> list[BreakerTransition]:
    """Write the breaker's state to the locked row and what happened since `restored_breaker` as
    transition and alert rows; they are published to the deployment's group once committed."""
    deployment.breaker = breaker.export_state()
    deployment.breaker_state = breaker.state
    deployment.save(update_fields=["breaker", "breaker_state"])
    transitions, alerts = [], []
    for alert in list(breaker.alerts):
        transition = None
        moved = alert.get("transition")
        if moved is not None:
            forced = bool(moved.get("forced"))
            transition = BreakerTransition.objects.create(
                deployment=deployment,
                from_state=moved["from"],
                to_state=moved["to"],
                reason=moved["reason"],
                detail=moved.get("detail") or "",
                actor=actor if forced else None,
                why=why if forced else "",
            )
            transitions.append(transition)
        alerts.append(
            Alert.objects.create(
                deployment=deployment,
                level=alert["level"],
                name=alert["name"],
                detail=alert.get("message") or "",
                transition=transition,
            )
        )
    breaker.transitions.clear()
    breaker.alerts.clear()
    if transitions or alerts:
        snapshot = breaker.snapshot()
        transaction.on_commit(lambda: live.breaker_changed(deployment.pk, transitions, alerts, snapshot))
    return transitions


def force(deployment_id: int, user, why: str, to_open: bool) -> BreakerTransition:
    """An operator forces the breaker open (held until closed) or closed; who and why are recorded."""
    with locked_deployment(deployment_id) as deployment:
        breaker = restored_breaker(deployment)
        who = user.get_username()
        if to_open:
            breaker.force_open(who, why)
        else:
            breaker.force_closed(who, why)
        [transition] = save_breaker(deployment, breaker, actor=user, why=why)
    return transition
