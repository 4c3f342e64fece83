"""The deploy form's preview: a breaker replayed on stored per-ticket confidences."""

from __future__ import annotations

from serving.breaker import BreakerConfig, fallback_preview

# three tickets, steps of four agents' confidences
TICKETS = [
    [[0.9, 0.95, 0.9, 0.8], [0.9, 0.9, 0.9, 0.99]],
    [[0.5, 0.55, 0.5, 0.9], [0.9, 0.9, 0.9, 0.9]],  # three lows in a row on the first step
    [[0.5, 0.9, 0.5, 0.9], [0.58, 0.9, 0.9, 0.9]],  # lows, never three in a row
]


def test_the_preview_counts_tickets_whose_breaker_opens_and_who_makes_the_decisions():
    out = fallback_preview(TICKETS, BreakerConfig(confidence_threshold=0.6, consecutive_low=3))
    assert out["tickets"] == 3 and out["decisions"] == 24
    assert out["fallback_tickets"] == 1 and abs(out["fallback_ticket_share"] - 1 / 3) < 1e-9
    # the tripping step and the rest of its ticket fall back, and so does every low decision before it
    assert out["model_decision_share"] == 13 / 24
    assert out["low_decision_share"] == 6 / 24


def test_a_higher_threshold_never_falls_back_less_and_the_extremes_are_all_or_nothing():
    shares = [
        fallback_preview(TICKETS, BreakerConfig(confidence_threshold=t))["fallback_ticket_share"]
        for t in (0.0, 0.4, 0.6, 0.85, 0.92, 1.0)
    ]
    assert shares == sorted(shares) and shares[0] == 0.0 and shares[-1] == 1.0
    assert fallback_preview([], BreakerConfig())["fallback_ticket_share"] == 0.0
