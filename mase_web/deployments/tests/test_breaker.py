"""The circuit breaker through the web path: injected backbone faults and low-confidence streaks open it,
the keyword-router fallback answers, no request fails, every transition is a row, an alert and an event;
operators force it with a reason; the state lives in the database row, not in one process."""

from __future__ import annotations

import pytest

from mase_web.accounts.models import Role
from mase_web.deployments import runtimes
from mase_web.deployments.models import Alert, BreakerTransition, DecisionStep, Deployment
from mase_web.deployments.tests.conftest import (
    client_for,
    fresh_text,
    inject_faults,
    make_deployment,
    make_trained_run,
    team_spec,
)

pytestmark = pytest.mark.django_db


def send(user, deployment, text=None):
    response = client_for(user).post(
        f"/api/deployments/{deployment.pk}/tickets/", {"text": text or fresh_text()}, format="json"
    )
    assert response.status_code == 201, response.content  # a fault never fails the request
    return response.json()["result"]


def moves(deployment) -> list[tuple[str, str, str]]:
    rows = BreakerTransition.objects.filter(deployment=deployment).order_by("created_at", "id")
    return [(t.from_state, t.to_state, t.reason) for t in rows]


def cool_down_elapsed(deployment: Deployment) -> None:
    """As if the spec's cool-down had passed since the breaker opened (the row holds wall-clock time)."""
    deployment.refresh_from_db()
    deployment.breaker["opened_at"] -= deployment.spec["circuit_breaker"]["cooldown_s"] + 1
    deployment.save(update_fields=["breaker"])


@pytest.fixture
def deployment(team, trained_checkpoint, tiny_backbone_dir):
    project, _ = team
    return make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir, threshold=0.0))


@pytest.mark.parametrize(
    ("mode", "kind"), [("raise", "backbone_error"), ("stall", "timeout"), ("nan", "non_finite")]
)
def test_backbone_fault_opens_the_breaker_the_fallback_answers_and_a_trial_recovers(
    team, deployment, settings, mode, kind
):
    _, users = team
    op = users[Role.OPERATOR]
    # Only the stall is meant to time out: a loaded CI machine must not turn a slow healthy step into a fault.
    settings.MASE_INFERENCE_STEP_TIMEOUT_S = 0.3 if mode == "stall" else 10.0  # the stall sleeps 0.6 s
    backbone = inject_faults(deployment)
    backbone.mode = mode
    result = send(op, deployment, fresh_text("my parcel is late and the box was damaged"))
    assert result["faults"][0]["kind"] == kind and result["sources"]["model"] == 0
    assert result["sources"]["fallback"] == result["steps"] > 0 and result["breaker"] == "open"
    first_step = [d for d in result["decisions"] if d["step"] == 1]
    assert {d["source"] for d in first_step} == {"fallback"} and {d["fault"] for d in first_step} == {kind}
    routed = {d["agent"]: d["reason"]["rule"] for d in first_step}
    assert "keyword rule" in routed["dispute_mediator"] or "keyword rule" in routed["logistics"]
    assert result["info"]["predicted_intents"]  # the keyword router answered the ticket
    assert moves(deployment) == [("closed", "open", kind)]
    [alert] = Alert.objects.filter(deployment=deployment, name="circuit_breaker.open")
    assert alert.level == "critical" and alert.transition.reason == kind
    deployment.refresh_from_db()
    assert deployment.breaker_state == "open" and deployment.breaker["counts"]["faults"] >= 1
    assert set(
        DecisionStep.objects.filter(episode__deployment=deployment).values_list("source", flat=True)
    ) == {"fallback"}

    backbone.mode = None  # the backbone recovers, but the breaker stays open until its cool-down ends
    runtimes.cached_runtime(deployment.pk).config.timeout_s = 10.0  # the trial may queue behind the stall
    assert send(op, deployment)["sources"]["model"] == 0
    cool_down_elapsed(deployment)
    recovered = send(op, deployment)
    assert recovered["sources"]["trial"] == 1 and recovered["breaker"] == "closed"
    assert recovered["decisions"][0]["source"] == "trial"
    assert moves(deployment)[1:] == [
        ("open", "half_open", "cooldown"),
        ("half_open", "closed", "trial_passed"),
    ]
    assert send(op, deployment)["sources"]["fallback"] == 0


def test_low_confidence_streak_opens_the_breaker(team, trained_checkpoint, tiny_backbone_dir):
    project, users = team
    # A barely trained team is never 99% sure: three tickets in a row with low decisions open the breaker,
    # one ticket alone does not (however many of its decisions were low: the rules answered those).
    cautious = make_deployment(project, trained_checkpoint, team_spec(tiny_backbone_dir, threshold=0.99))
    for _ in range(2):
        unsure = send(users[Role.OPERATOR], cautious)
        assert unsure["breaker"] == "closed" and unsure["held_back"] >= 1
    result = send(users[Role.OPERATOR], cautious)
    assert result["faults"] == [] and result["breaker"] == "open"
    assert result["sources"]["fallback"] == result["steps"]  # the tripping step is answered by the rules
    [(start, end, reason)] = moves(cautious)
    assert (start, end, reason) == ("closed", "open", "low_confidence")
    transition = BreakerTransition.objects.get(deployment=cautious)
    assert "3 consecutive tickets with a decision below 0.99" in transition.detail
    assert transition.actor is None
    assert Alert.objects.get(transition=transition).level == "critical"


def test_operator_forces_open_with_a_reason_and_the_next_ticket_gets_the_fallback(team, deployment):
    _, users = team
    op = users[Role.OPERATOR]
    assert send(op, deployment)["sources"]["fallback"] == 0
    in_this_process = runtimes.cached_runtime(deployment.pk)
    assert in_this_process.breaker.state == "closed"

    url = f"/api/deployments/{deployment.pk}/breaker/"
    for body in ({"state": "open"}, {"state": "open", "reason": "   "}, {"state": "ajar", "reason": "x"}):
        refused = client_for(op).post(url, body, format="json")
        assert refused.status_code == 400, body
    assert set(client_for(op).post(url, {"state": "sideways"}, format="json").json()["errors"]) == {
        "state",
        "reason",
    }
    for who in (Role.PRODUCT_MANAGER, Role.ANNOTATOR, "stranger"):
        response = client_for(users[who]).post(url, {"state": "open", "reason": "mine"}, format="json")
        assert response.status_code in (403, 404), who
    assert BreakerTransition.objects.count() == 0

    forced = client_for(op).post(
        url, {"state": "open", "reason": "refund policy changed today"}, format="json"
    )
    assert forced.status_code == 200, forced.content
    body = forced.json()
    assert body["breaker"]["state"] == "open" and body["breaker"]["forced"] is True
    assert (body["transition"]["actor"], body["transition"]["why"]) == (
        op.username,
        "refund policy changed today",
    )
    # The force went to the database, not to this process's runtime; the next ticket reads it from there.
    assert in_this_process.breaker.state == "closed"
    result = send(op, deployment, fresh_text("I was charged twice, refund me"))
    assert result["sources"] == {"model": 0, "trial": 0, "fallback": result["steps"]}
    assert {d["source"] for d in result["decisions"]} == {"fallback"}
    assert {d["breaker_state"] for d in result["decisions"]} == {"open"}
    cool_down_elapsed(deployment)  # a forced breaker holds: no half-open trial however long it waits
    assert send(op, deployment)["sources"]["fallback"] > 0

    client_for(users[Role.ADMIN]).post(
        url, {"state": "closed", "reason": "policy rules updated"}, format="json"
    )
    assert send(op, deployment)["sources"]["fallback"] == 0
    rows = list(BreakerTransition.objects.filter(deployment=deployment).order_by("created_at", "id"))
    assert [(t.to_state, t.reason, t.actor.username, t.why) for t in rows] == [
        ("open", "operator", op.username, "refund policy changed today"),
        ("closed", "operator", users[Role.ADMIN].username, "policy rules updated"),
    ]
    history = (
        client_for(users[Role.PRODUCT_MANAGER]).get(f"/api/deployments/{deployment.pk}/transitions/").json()
    )
    assert [t["why"] for t in history] == ["policy rules updated", "refund policy changed today"]
    alerts = client_for(users[Role.PRODUCT_MANAGER]).get(f"/api/deployments/{deployment.pk}/alerts/").json()
    assert [a["name"] for a in alerts] == ["circuit_breaker.closed", "circuit_breaker.open"]


def low_streak(decisions: list[dict], threshold: float, start: int = 0) -> int:
    """The breaker's count of consecutive low-confidence tickets after one ticket's ``decisions``: the
    ticket counts once from its first step with a low decision; a confident step before that resets."""
    streak = start
    for step in sorted({d["step"] for d in decisions}):
        if any(d["confidence"] < threshold for d in decisions if d["step"] == step):
            return streak + 1
        streak = 0
    return streak


def test_a_breaker_restored_from_the_row_carries_its_low_streak_across_processes(
    team, trained_checkpoint, tiny_backbone_dir
):
    project, users = team
    patient = make_deployment(
        project, trained_checkpoint, team_spec(tiny_backbone_dir, threshold=0.99, consecutive_low=500)
    )
    first = send(users[Role.OPERATOR], patient)
    patient.refresh_from_db()
    assert first["breaker"] == "closed" and patient.breaker["consecutive_low"] == low_streak(
        first["decisions"], 0.99
    )
    runtimes.forget_all()  # another process: nothing in memory, only the row
    second = send(users[Role.OPERATOR], patient)
    patient.refresh_from_db()
    carried = low_streak(second["decisions"], 0.99, start=low_streak(first["decisions"], 0.99))
    assert patient.breaker["consecutive_low"] == carried > 0
    assert patient.breaker["counts"]["decisions"] == len(first["decisions"]) + len(second["decisions"])


@pytest.mark.parametrize(("declared", "shown"), [(None, 6 + 2), (12, 12)])
def test_the_dashboard_shows_the_step_limit_the_runtime_enforces(team, tmp_path, declared, shown):
    """Unset, the runtime's limit is the environment's longest episode plus a margin (max_steps 6: 8); the
    deployment's breaker read 20, the limit of an environment that declares no episode length."""
    project, users = team
    spec = team_spec(tmp_path)
    spec["environment"]["params"]["max_steps"] = 6
    spec["circuit_breaker"].pop("step_limit", None)
    if declared is not None:
        spec["circuit_breaker"]["step_limit"] = declared
    run = make_trained_run(project, None, spec)
    deployment = Deployment.objects.create(project=project, name="cs", run=run, checkpoint="x", spec=spec)
    body = client_for(users[Role.OPERATOR]).get(f"/api/deployments/{deployment.pk}/").json()
    assert body["breaker"]["config"]["step_limit"] == shown
