"""The deploy form's preview: a breaker replayed on stored per-ticket confidences, ticket after ticket."""

from __future__ import annotations

from serving.breaker import BreakerConfig, fallback_preview

# five tickets in arrival order, steps of four agents' confidences
TICKETS = [
    [[0.9, 0.95, 0.9, 0.8], [0.9, 0.9, 0.9, 0.99]],
    [[0.5, 0.55, 0.5, 0.9], [0.9, 0.9, 0.9, 0.9]],  # three unsure agents on one ticket: a streak of one
    [[0.5, 0.9, 0.5, 0.9], [0.58, 0.9, 0.9, 0.9]],  # the second unsure ticket in a row
    [[0.9, 0.59, 0.9, 0.9], [0.9, 0.9, 0.9, 0.9]],  # the third: opens on its first step
    [[0.9, 0.9, 0.9, 0.9]],  # after the cool-down: the half-open trial, confident, closes it
]


def test_the_preview_counts_unsure_tickets_not_decisions_and_who_makes_the_decisions():
    out = fallback_preview(TICKETS, BreakerConfig(confidence_threshold=0.6, consecutive_low=3))
    assert out["tickets"] == 5 and out["decisions"] == 36
    assert out["fallback_tickets"] == 1 and abs(out["fallback_ticket_share"] - 1 / 5) < 1e-9
    # the opening ticket falls back whole, and so does every low decision before it; the trial is the model's
    assert out["model_decision_share"] == (8 + 5 + 5 + 0 + 4) / 36
    assert out["low_decision_share"] == 7 / 36
    # one ambiguous ticket alone never opens it, however many of its agents were unsure
    assert fallback_preview(TICKETS[1:2], BreakerConfig(confidence_threshold=0.6))["fallback_tickets"] == 0


def test_a_higher_threshold_never_falls_back_less_and_the_extremes_are_none_or_all_after_k():
    shares = [
        fallback_preview(TICKETS, BreakerConfig(confidence_threshold=t))["fallback_ticket_share"]
        for t in (0.0, 0.4, 0.6, 0.85, 0.92, 1.0)
    ]
    # at 1.0 every ticket is unsure: the first K - 1 are the model's, the K-th opens it, every trial fails
    assert shares == sorted(shares) and shares[0] == 0.0 and shares[-1] == (5 - 2) / 5
    assert fallback_preview([], BreakerConfig())["fallback_ticket_share"] == 0.0
