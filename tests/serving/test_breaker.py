"""CircuitBreaker transitions with an injected clock; rule fallbacks from the spec."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from agents.spec import CircuitBreakerSpec
from serving.breaker import (
    CLOSED,
    HALF_OPEN,
    OPEN,
    BreakerConfig,
    CircuitBreaker,
    Fallback,
    KeywordRouterFallback,
    ScriptedFallback,
    make_fallback,
)
from training.events import EventStream


class Clock:
    """A hand-moved clock (seconds)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(threshold=0.5, k=3, cooldown=10.0, step_limit=20):
    clock, events = Clock(), []
    stream = EventStream([events.append])
    breaker = CircuitBreaker(
        BreakerConfig(threshold, k, cooldown, step_limit), events=stream, clock=clock, wall_clock=clock
    )
    return breaker, clock, events


def test_opens_after_k_consecutive_low_tickets_not_before():
    breaker, _, events = make(k=3)
    assert breaker.route() == "model"
    assert breaker.record_step([0.2, 0.3], ticket="a") is True  # one ticket, two lows: a streak of one
    assert breaker.record_step([0.9], ticket="b") is True  # a confident ticket resets the streak
    assert breaker.record_step([0.1, 0.2], ticket="c") is True
    assert breaker.record_step([0.3], ticket="d") is True
    assert breaker.state == CLOSED and breaker.consecutive_low == 2
    assert breaker.record_step([0.4], ticket="e") is False  # third low ticket in a row
    assert breaker.state == OPEN
    assert breaker.route() == "fallback"
    [alert] = [e for e in events if e.type == "alert"]
    assert alert.payload["source"] == "breaker"
    assert alert.payload["name"] == "circuit_breaker.open"
    assert alert.payload["level"] == "critical"
    assert alert.payload["transition"]["reason"] == "low_confidence"
    assert alert.payload["transition"]["consecutive_low"] == 3


def test_one_ticket_with_three_unsure_agents_does_not_open_it_k_unsure_tickets_in_a_row_do():
    breaker, _, _ = make(threshold=0.6, k=3)
    assert breaker.record_step([0.4, 0.5, 0.55], ticket="ambiguous") is True  # three unsure specialists
    assert breaker.record_step([0.3, 0.2], ticket="ambiguous") is True  # its next step: still one ticket
    assert breaker.record_step([0.9, 0.9], ticket="ambiguous") is True  # nor does its sure step reset it
    assert breaker.state == CLOSED and breaker.consecutive_low == 1 and breaker.counts["low"] == 5
    assert breaker.record_step([0.5, 0.9, 0.9], ticket="second") is True
    assert breaker.record_step([0.9, 0.1, 0.9], ticket="third") is False  # K = 3 unsure tickets
    assert breaker.state == OPEN and breaker.transitions[-1]["consecutive_low"] == 3
    assert "3 consecutive tickets" in breaker.transitions[-1]["detail"]
    unnamed, _, _ = make(threshold=0.6, k=3)  # no ticket given: each step counts as a ticket of its own
    assert [unnamed.record_step([0.1]) for _ in range(3)] == [True, True, False]


def test_half_open_trial_closes_on_confidence_and_reopens_on_low():
    breaker, clock, events = make(cooldown=10.0)
    breaker.record_fault("non_finite", "NaN logits")
    assert breaker.state == OPEN
    clock.now += 9.9
    assert breaker.route() == "fallback"  # still cooling down
    assert breaker.snapshot()["cooldown_left_s"] == pytest.approx(0.1)
    clock.now += 0.2
    assert breaker.route() == "trial"
    assert breaker.state == HALF_OPEN
    assert breaker.route() == "fallback"  # one trial at a time
    assert breaker.record_step([0.9, 0.3], trial=True) is False  # one low decision fails the trial
    assert breaker.state == OPEN
    clock.now += 10.0
    assert breaker.route() == "trial"
    assert breaker.record_step([0.9, 0.8], trial=True) is True
    assert breaker.state == CLOSED
    path = [(t["from"], t["to"], t["reason"]) for t in breaker.transitions]
    assert path == [
        (CLOSED, OPEN, "non_finite"),
        (OPEN, HALF_OPEN, "cooldown"),
        (HALF_OPEN, OPEN, "low_confidence"),
        (OPEN, HALF_OPEN, "cooldown"),
        (HALF_OPEN, CLOSED, "trial_passed"),
    ]
    alerts = [e.payload for e in events if e.type == "alert"]
    assert [a["state"] for a in alerts] == [OPEN, HALF_OPEN, OPEN, HALF_OPEN, CLOSED]
    assert [a["level"] for a in alerts][-1] == "info"
    assert len(breaker.alerts) == len(alerts)


@pytest.mark.parametrize("kind", ["backbone_error", "timeout", "non_finite", "step_limit"])
def test_every_fault_kind_opens_at_once_and_fails_a_trial(kind):
    breaker, clock, _ = make(cooldown=1.0)
    breaker.record_fault(kind, "injected")
    assert breaker.state == OPEN
    assert breaker.transitions[-1]["reason"] == kind
    clock.now += 1.0
    assert breaker.route() == "trial"
    breaker.record_fault(kind, "again", trial=True)
    assert breaker.state == OPEN
    assert breaker.counts["faults"] == 2


def test_unknown_fault_kind_is_refused():
    breaker, _, _ = make()
    with pytest.raises(ValueError, match="unknown fault kind"):
        breaker.record_fault("cosmic_ray")


def test_operator_force_open_holds_until_force_closed():
    breaker, clock, events = make(cooldown=1.0)
    record = breaker.force_open("alice", "bad deploy")
    assert record["who"] == "alice" and record["detail"] == "bad deploy" and record["forced"]
    clock.now += 100.0
    assert breaker.route() == "fallback"  # no half-open trial while held
    assert breaker.snapshot()["forced"] is True
    breaker.force_closed("bob", "rolled back")
    assert breaker.state == CLOSED and not breaker.forced
    assert breaker.route() == "model"
    who = [(e.payload["transition"]["who"], e.payload["state"]) for e in events if e.type == "alert"]
    assert who == [("alice", OPEN), ("bob", CLOSED)]
    with pytest.raises(ValueError, match="who"):
        breaker.force_open("", "no name")


def test_trial_result_after_operator_intervention_does_not_override_them():
    breaker, clock, _ = make(cooldown=0.0)
    breaker.record_fault("timeout")
    assert breaker.route() == "trial"
    breaker.force_open("carol", "investigating")
    breaker.record_step([0.99], trial=True)
    assert breaker.state == OPEN and breaker.forced


def test_from_spec_and_bad_thresholds():
    breaker = CircuitBreaker(CircuitBreakerSpec(confidence_threshold=0.6, consecutive_low=2, cooldown_s=5))
    assert breaker.config.consecutive_low == 2 and breaker.config.confidence_threshold == 0.6
    with pytest.raises(ValueError, match="confidence_threshold"):
        CircuitBreaker(BreakerConfig(confidence_threshold=1.5))


def test_concurrent_trials_grant_exactly_one():
    breaker, clock, _ = make(cooldown=0.0)
    breaker.record_fault("timeout")
    routes: list[str] = []
    lock = threading.Lock()

    def ask() -> None:
        route = breaker.route()
        with lock:
            routes.append(route)

    threads = [threading.Thread(target=ask) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert routes.count("trial") == 1 and routes.count("fallback") == 15


def _obs(text: str, drafted: tuple[str, ...] = ()) -> dict:
    from agents.envs.customer_service.tickets import INTENTS

    return {"ticket": text, "draft": np.array([i in drafted for i in INTENTS], np.int8), "step": 0}


def test_keyword_router_fallback_routes_by_spec_rules():
    from agents.envs.customer_service.rules import KeywordRouter

    rules = [
        {"keywords": ["refund", "broken"], "route_to": "dispute_mediator"},
        {"keywords": ["where is"], "route_to": "logistics"},
    ]
    fallback = make_fallback({"kind": "keyword_router", "rules": rules}, "customer_service")
    assert isinstance(fallback, KeywordRouterFallback)
    fallback.router = KeywordRouter()  # untuned hand rules: fast
    text = "My lamp arrived broken, I want a refund"
    assert fallback.routed_roles(text) == ["dispute_mediator"]
    acts = fallback.actions({a: _obs(text) for a in ("shopping_guide", "dispute_mediator")})
    assert acts["shopping_guide"][0] == 0  # not routed: pass
    assert acts["dispute_mediator"][0] != 0 and "routed" in acts["dispute_mediator"][1]
    wanted = fallback.intents_for(text)
    assert set(wanted) <= {"return_refund", "damaged_item", "complaint"} and wanted
    approve, _ = fallback.act("quality_supervisor", _obs(text, wanted))
    assert approve == 1  # approve once every routed intent is drafted


def test_make_fallback_kinds_and_errors():
    assert type(make_fallback(None, "customer_service")) is Fallback
    assert make_fallback({"kind": "none"}, "x").act("a", {}) == (0, "no fallback configured: no-op action")
    assert isinstance(make_fallback({"kind": "scripted"}, "research_report"), ScriptedFallback)
    with pytest.raises(ValueError, match="customer_service"):
        make_fallback({"kind": "keyword_router", "rules": []}, "number_guess")
    with pytest.raises(ValueError, match="no rule-scripted team"):
        make_fallback({"kind": "scripted"}, "number_guess")


def test_keyword_router_fallback_uses_the_router_when_no_rule_matches():
    from agents.envs.customer_service.fallback import KeywordRoutedTeam
    from agents.envs.customer_service.rules import KeywordRouter

    rules = [{"keywords": ["refund"], "route_to": "dispute_mediator"}]
    fallback = KeywordRouterFallback(KeywordRoutedTeam(rules, KeywordRouter))
    text = "where is my parcel? the tracking number does not work"
    assert fallback.routed_roles(text) == []
    assert "order_tracking" in fallback.intents_for(text)
    assert fallback.act("quality_supervisor", _obs(text))[0] == 0  # continue: nothing answered yet


def test_state_survives_export_and_restore_in_another_process():
    """A breaker restored from `export_state` (e.g. a database row) continues where the first one was."""
    first, clock, _ = make(threshold=0.5, k=3, cooldown=10.0)
    first.record_step([0.1, 0.2], ticket="t1")
    first.record_step([0.3], ticket="t2")
    saved = first.export_state()
    assert saved["state"] == CLOSED and saved["consecutive_low"] == 2 and saved["low_tickets"] == ["t1", "t2"]
    # "another process": its own monotonic clock far from the first one's; only wall time is shared
    other_clock = Clock()
    other_clock.now = 5.0
    second = CircuitBreaker(BreakerConfig(0.5, 3, 10.0, 20), clock=other_clock, wall_clock=clock)
    second.restore(saved)
    assert second.record_step([0.1], ticket="t2") is True  # t2 counted already, in the other process
    assert second.record_step([0.1], ticket="t3") is False and second.state == OPEN  # the streak carried over
    opened = second.export_state()
    third = CircuitBreaker(BreakerConfig(0.5, 3, 10.0, 20), clock=Clock(), wall_clock=clock)
    third.restore(opened)
    assert third.route() == "fallback" and third.snapshot()["cooldown_left_s"] == pytest.approx(10.0)
    clock.now += 10.0  # ten wall seconds later the cool-down is over wherever the breaker lives
    third.restore(opened)
    assert third.route() == "trial" and third.state == HALF_OPEN
    assert third.export_state()["counts"]["opened"] == 1


def test_restore_keeps_an_operator_hold_and_refuses_unknown_states():
    breaker, clock, _ = make()
    breaker.force_open("ops", "maintenance")
    held = CircuitBreaker(BreakerConfig(), clock=clock, wall_clock=clock)
    held.restore(breaker.export_state())
    clock.now += 3600
    assert held.forced and held.route() == "fallback"
    fresh = CircuitBreaker(BreakerConfig())
    fresh.restore({})
    assert fresh.state == CLOSED and fresh.route() == "model"
    with pytest.raises(ValueError, match="breaker state"):
        fresh.restore({"state": "melted"})


def test_a_journal_replayed_onto_a_state_that_moved_applies_the_outcomes_there():
    """Two copies start closed; the second's journal, replayed after the first saved, continues its state."""
    first, _, _ = make(threshold=0.5, k=3, cooldown=10.0)
    second, _, _ = make(threshold=0.5, k=3, cooldown=10.0)
    second.journal = []
    first.record_step([0.1], ticket="a")
    first.record_step([0.2], ticket="b")  # two low tickets: closed, streak 2
    assert second.route() == "model"
    second.record_step([0.3], ticket="c")  # one low ticket on its own copy: still closed there
    assert second.state == CLOSED and second.journal == [("step", [0.3], False, "c")]

    merged, _, _ = make(threshold=0.5, k=3, cooldown=10.0)
    merged.restore(first.export_state())
    merged.replay(second.journal)
    assert merged.state == OPEN and merged.counts["decisions"] == 3  # 2 + 1 low tickets in a row reach K
    assert [t["reason"] for t in merged.transitions] == ["low_confidence"]


def test_a_replayed_trial_moves_nothing_where_no_trial_is_due():
    """A copy that took a half-open trial and closed, replayed onto a breaker an operator holds open."""
    copy, clock, _ = make(cooldown=10.0)
    copy.record_fault("timeout")
    clock.now += 10.0
    copy.journal = []
    assert copy.route() == "trial"
    copy.record_step([0.9, 0.9], trial=True)
    assert copy.state == CLOSED
    assert copy.journal == [("trial",), ("step", [0.9, 0.9], True, None)]

    held, _, _ = make(cooldown=10.0)
    held.force_open("ops", "maintenance")
    held.transitions.clear()
    held.replay(copy.journal)
    assert held.state == OPEN and held.forced and list(held.transitions) == []
    assert held.counts["decisions"] == 2 and held.counts["trials"] == 0
    with pytest.raises(ValueError, match="journal entry"):
        held.replay([("melted",)])
