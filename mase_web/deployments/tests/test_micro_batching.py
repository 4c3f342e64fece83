"""Concurrent tickets to one deployment are micro-batched: they play together as one group, each keeps
its whole decision log (rows and live stream, in order), and the breaker is read once and written once per
group — so faults in a group open it once, and a cooled-down breaker gives exactly one half-open trial."""

from __future__ import annotations

import collections
import threading
import time

import pytest
from django.db import connection
from rest_framework.authtoken.models import Token

from mase_web.accounts.models import Role
from mase_web.deployments import breaker_state, breaker_store, inference, runtimes
from mase_web.deployments.inference import TicketRequest, answer_ticket
from mase_web.deployments.models import Alert, DecisionStep, Episode
from mase_web.deployments.tests.conftest import fresh_text, inject_faults, make_deployment, team_spec
from mase_web.deployments.tests.test_breaker import cool_down_elapsed, moves
from mase_web.deployments.tests.test_live import call, listen

ENDED = ("completed", "truncated")

pytestmark = pytest.mark.django_db(transaction=True)  # the tickets' threads commit on their own connections


def wait_until(condition, what: str, limit_s: float = 120.0) -> None:
    """Poll until ``condition()`` holds (the limit only stops a hang; nothing here measures time)."""
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.01)


def play_together(deployment, texts: list[str], user) -> list[inference.Answer]:
    """Answer every text from a thread of its own while this test holds the deployment's playing turn in
    this process, so all of them gather in one group; the answers come back in the order of ``texts``."""
    answers: list = [None] * len(texts)
    errors: list[BaseException] = []

    def one(i: int) -> None:
        try:
            answers[i] = answer_ticket(deployment, TicketRequest(texts[i]), "api", user)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    def gathered() -> int:
        group = inference._open_groups.get(deployment.pk)
        return len(group.tickets) if group is not None else 0

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(texts))]
    with inference._playing_turn(deployment.pk):
        for t in threads:
            t.start()
        wait_until(lambda: gathered() == len(texts), f"{len(texts)} tickets in one group")
    for t in threads:
        t.join()
    assert errors == []
    return answers


def stored_log(episode: Episode) -> list[tuple[int, str, str, str]]:
    rows = DecisionStep.objects.filter(episode=episode).order_by("step", "id")
    return [(r.step, r.agent, r.action, r.source) for r in rows]


def logged(decisions: list[dict]) -> list[tuple[int, str, str, str]]:
    return [(d["step"], d["agent"], d["action"], d["source"]) for d in decisions]


def told_breaker(results: list[dict]) -> int:
    """The decisions the team made, each of which the breaker counts: a step the rules answered (after a
    fault such as a model step past its time limit on a loaded machine, or while open) carries no confidence."""
    return sum(d["confidence"] is not None for r in results for d in r["decisions"])


@pytest.fixture
def deployment(team, trained_checkpoint, tiny_backbone_dir):
    project, _ = team
    return make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir, threshold=0.0))


def test_concurrent_tickets_play_as_one_group_and_each_keeps_its_whole_log(team, deployment, settings):
    _, users = team
    settings.MASE_INFERENCE_STEP_TIMEOUT_S = 10.0  # a loaded machine must not turn slow steps into faults
    runtimes.runtime_for(deployment)  # built before the burst, with that limit: the first build takes seconds
    texts = [fresh_text("where is my parcel? it is late") for _ in range(8)]
    answers = play_together(deployment, texts, users[Role.OPERATOR])

    assert len({a.episode.pk for a in answers}) == 8
    for text, answer in zip(texts, answers, strict=True):
        result = answer.result
        # a team trained for a moment may run to the step limit: a finished episode either way
        assert result["group_size"] == 8 and result["status"] in ENDED and result["decisions"]
        episode = Episode.objects.get(pk=answer.episode.pk)
        assert (episode.task_text, episode.status, episode.result["group_size"]) == (
            text,
            result["status"],
            8,
        )
        assert episode.created_by == users[Role.OPERATOR]
        assert stored_log(episode) == logged(result["decisions"])  # every decision, in order
        assert {d["request_id"] for d in result["decisions"]} == {episode.request_id}
        assert answer.episode_data["id"] == episode.pk and answer.episode_data["status"] == result["status"]
    # saved once for the group, the breaker counted the decisions of all eight tickets
    deployment.refresh_from_db()
    assert deployment.breaker["counts"]["decisions"] == told_breaker([a.result for a in answers])
    assert deployment.breaker_state == "closed" and moves(deployment) == []


def test_a_group_with_faulting_tickets_opens_the_breaker_once_and_one_trial_closes_it(
    team, deployment, settings
):
    _, users = team
    op = users[Role.OPERATOR]
    settings.MASE_INFERENCE_STEP_TIMEOUT_S = 10.0  # a loaded machine must not turn slow steps into faults
    backbone = inject_faults(deployment)
    backbone.mode = "raise"
    faulty = play_together(deployment, [fresh_text("my kettle arrived broken") for _ in range(6)], op)

    for answer in faulty:  # no request failed: the fallback answered every step of every ticket
        result = answer.result
        assert result["sources"]["model"] == 0 and result["sources"]["fallback"] == result["steps"] > 0
        assert result["breaker"] == "open" and result["group_size"] == 6
        assert {d["source"] for d in result["decisions"]} == {"fallback"}
    assert any(a.result["faults"] for a in faulty)
    assert moves(deployment) == [("closed", "open", "backbone_error")]  # one transition for the group
    assert Alert.objects.filter(deployment=deployment, name="circuit_breaker.open").count() == 1
    deployment.refresh_from_db()
    assert deployment.breaker_state == "open" and deployment.breaker["counts"]["opened"] == 1
    assert deployment.breaker["counts"]["faults"] == sum(len(a.result["faults"]) for a in faulty)

    backbone.mode = None
    cool_down_elapsed(deployment)
    recovered = play_together(deployment, [fresh_text("I was charged twice") for _ in range(6)], op)
    trials = [a for a in recovered if a.result["sources"]["trial"]]
    assert len(trials) == 1 and trials[0].result["sources"]["trial"] == 1  # one half-open trial in all
    assert trials[0].result["breaker"] == "closed"
    # a ticket that ended while the trial was out saw the breaker half-open (the fallback answered it)
    assert {a.result["breaker"] for a in recovered} <= {"closed", "half_open"}
    assert moves(deployment) == [
        ("closed", "open", "backbone_error"),
        ("open", "half_open", "cooldown"),
        ("half_open", "closed", "trial_passed"),
    ]
    deployment.refresh_from_db()
    assert deployment.breaker_state == "closed" and deployment.breaker["counts"]["trials"] == 1


def play_unlocked(deployment, report) -> tuple[object, dict]:
    """One process's group: its breaker restored from the row as read, then told what ``report`` says,
    without the row lock (`inference._lead` plays this way); returns the breaker and the row as read."""
    deployment.refresh_from_db()
    breaker = breaker_state.restored_breaker(deployment)
    seen = breaker_store.playing_breaker(deployment, breaker)
    report(breaker)
    return breaker, seen


def store_played(deployment, breaker, seen) -> None:
    with breaker_store.locked_deployment(deployment.pk) as locked:
        breaker_store.save_played(locked, breaker, seen)


def test_two_processes_playing_at_once_merge_their_low_streaks_into_one_opening(team, deployment):
    deployment.spec["circuit_breaker"] |= {"confidence_threshold": 0.5, "consecutive_low": 3}
    deployment.save(update_fields=["spec"])

    def two_low_tickets(group: str):  # each group alone stays under K = 3 (the streak counts tickets)
        return lambda b: [b.record_step([0.2, 0.1], ticket=f"{group}-{n}") for n in (1, 2)]

    first, first_seen = play_unlocked(deployment, two_low_tickets("first"))
    second, second_seen = play_unlocked(deployment, two_low_tickets("second"))  # read before the first stored
    assert first.state == second.state == "closed"
    store_played(deployment, first, first_seen)
    store_played(deployment, second, second_seen)  # the row moved: its two lows go on top of the first's

    deployment.refresh_from_db()
    assert deployment.breaker_state == "open" and deployment.breaker["counts"]["decisions"] == 8
    assert moves(deployment) == [("closed", "open", "low_confidence")]  # stored once
    assert Alert.objects.filter(deployment=deployment, name="circuit_breaker.open").count() == 1


def test_an_operators_force_while_a_group_plays_stands_and_the_groups_opening_is_not_stored(team, deployment):
    _, users = team
    fault = lambda b: b.record_fault("backbone_error", "the backbone raised")  # noqa: E731
    playing, seen = play_unlocked(deployment, fault)
    assert playing.state == "open" and not playing.forced  # in this process the fault opened it
    breaker_store.force(deployment.pk, users[Role.OPERATOR], "maintenance window", to_open=True)
    store_played(deployment, playing, seen)

    deployment.refresh_from_db()
    assert deployment.breaker_state == "open" and deployment.breaker["forced"] is True
    assert deployment.breaker["counts"]["faults"] == 1
    assert moves(deployment) == [("closed", "open", "operator")]  # the group's own opening is not stored
    # the fault still tells the operator, as a warning on a breaker already open
    assert Alert.objects.filter(deployment=deployment, name="circuit_breaker.backbone_error").count() == 1

    # the held breaker stands over a later group's confident trial-free decisions too
    calm, calm_seen = play_unlocked(deployment, lambda b: b.record_step([0.9, 0.9]))
    store_played(deployment, calm, calm_seen)
    deployment.refresh_from_db()
    assert deployment.breaker_state == "open" and len(moves(deployment)) == 1


@pytest.mark.services
def test_concurrent_tickets_over_http_are_all_answered_and_streamed_whole(
    live_services, run_async, team, deployment
):
    _, users = team
    token = Token.objects.create(user=users[Role.OPERATOR]).key
    path = f"/api/deployments/{deployment.pk}/tickets/"
    warm = call(
        live_services.base_url, token, "POST", path, {"text": fresh_text()}
    )  # the server builds the team
    assert warm[0] == 201, warm
    clients = 12
    replies: list = []

    def burst() -> None:
        start = threading.Barrier(clients)

        def one() -> None:
            start.wait()
            replies.append(call(live_services.base_url, token, "POST", path, {"text": fresh_text()}))

        threads = [threading.Thread(target=one) for _ in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def all_finished(frames) -> bool:
        return sum(f["kind"] == "episode" and f["episode"]["status"] != "running" for f in frames) >= clients

    url = f"{live_services.ws_url}/ws/deployments/{deployment.pk}/"
    frames = run_async(listen(url, token, burst, all_finished, timeout=180))
    assert [status for status, _ in replies] == [201] * clients, replies
    sizes = collections.Counter()
    for _, body in replies:
        episode_id, request_id, result = body["episode"]["id"], body["episode"]["request_id"], body["result"]
        sizes[result["group_size"]] += 1
        mine = [
            (i, f) for i, f in enumerate(frames)
            if (f["kind"] == "episode" and f["episode"]["id"] == episode_id)
            or (f["kind"] == "step" and f["request_id"] == request_id)
        ]  # fmt: skip
        kinds = [f["kind"] for _, f in mine]
        assert kinds[0] == "episode" and kinds[-1] == "episode" and set(kinds[1:-1]) == {"step"}
        assert mine[0][1]["episode"]["status"] == "running"
        assert mine[-1][1]["episode"]["status"] == result["status"] in ENDED
        assert [f["record"] for _, f in mine[1:-1]] == result["decisions"]  # every decision, in order, live
        assert {f["episode"] for _, f in mine[1:-1]} == {episode_id}
        assert stored_log(Episode.objects.get(pk=episode_id)) == logged(result["decisions"])
    assert all(count % size == 0 for size, count in sizes.items())  # whole groups answered
    deployment.refresh_from_db()
    answered = [r["result"] for _, r in replies] + [warm[1]["result"]]
    assert deployment.breaker["counts"]["decisions"] == told_breaker(answered) > 0


@pytest.mark.services
def test_the_server_closes_each_requests_database_connection(live_services, team, deployment):
    if connection.vendor != "postgresql":
        pytest.skip("counts PostgreSQL's connections (SQLite has none to run out of)")
    _, users = team
    token = Token.objects.create(user=users[Role.OPERATOR]).key

    def open_connections() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
            return cursor.fetchone()[0]

    before = open_connections()
    for _ in range(30):  # each request runs on a fresh thread of the server, with a connection of its own
        status, _body = call(
            live_services.base_url, token, "GET", f"/api/deployments/{deployment.pk}/breaker/"
        )
        assert status == 200
    assert open_connections() <= before + 2  # kept-alive connections would pile up, one per request
