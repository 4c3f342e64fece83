"""Promotion and rollback while tickets are in flight: each ticket finishes on the team it started with
(runtimes are cached per checkpoint, the switch happens under the deployment's row lock), none is lost."""

from __future__ import annotations

import shutil
import threading
import time

import pytest
from django.db import connection

from mase_web.deployments.evolution import first_generation, promote, rollback
from mase_web.deployments.inference import TicketRequest, answer_ticket
from mase_web.deployments.models import Deployment, Episode, Generation
from mase_web.deployments.tests.conftest import fresh_text, make_deployment, make_trained_run, team_spec

pytestmark = pytest.mark.django_db(transaction=True)  # the tickets' threads commit on their own connections


def wait_for(condition, limit_s: float = 120.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)


def test_rollback_and_promotion_under_concurrent_tickets_lose_none(
    team, trained_checkpoint, tiny_backbone_dir, tmp_path
):
    project, users = team
    deployment = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir))
    copy = tmp_path / "generation-2"
    shutil.copytree(trained_checkpoint, copy)
    parent = first_generation(deployment)
    challenger = Generation.objects.create(
        deployment=deployment, number=2, run=make_trained_run(project, copy, deployment.spec),
        checkpoint=str(copy), spec=deployment.spec, parent=parent, phase=Generation.Phase.READY,
    )  # fmt: skip
    answered: list[str] = []
    errors: list[BaseException] = []

    def client(k: int) -> None:
        try:
            for _ in range(4):  # each ticket reads the row as it is now: the team serving at its start
                current = Deployment.objects.get(pk=deployment.pk)
                answer = answer_ticket(current, TicketRequest(fresh_text()), "api", users["operator"])
                answered.append(answer.episode.request_id)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    wait_for(lambda: len(answered) >= 2)  # tickets are flowing: switch teams between and during them
    promote(challenger, users["product_manager"])
    wait_for(lambda: len(answered) >= 6)
    rollback(Deployment.objects.get(pk=deployment.pk), users["product_manager"])
    for t in threads:
        t.join()
    assert errors == []
    assert len(answered) == 12
    stored = Episode.objects.filter(deployment=deployment, request_id__in=answered)
    assert set(stored.values_list("status", flat=True)) <= {"completed", "truncated"}
    assert stored.count() == 12
    deployment.refresh_from_db()
    assert deployment.checkpoint == str(trained_checkpoint)  # rolled back to generation 1
    assert [g.status for g in deployment.generations.order_by("number")] == ["champion", "rejected"]
